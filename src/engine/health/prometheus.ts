/**
 * Prometheus Operator (monitoring.coreos.com): the workloads it runs (Prometheus, PrometheusAgent, Alertmanager,
 * ThanosRuler) report `Available` (True, Degraded or False) and `Reconciled`: anything but Available=True, or
 * Reconciled=False, is Degraded; no conditions yet is Progressing. The configuration kinds (ServiceMonitor,
 * PodMonitor, PrometheusRule, Probe, ScrapeConfig, AlertmanagerConfig) are Healthy unless a workload that selects
 * them reports in `status.bindings[].conditions` that it did not accept them.
 */
import { pendingChange } from './generic.ts';
import {
  type Condition,
  condition,
  degraded,
  type Health,
  healthy,
  type LiveObject,
  progressing,
  said,
} from './status.ts';

const WORKLOADS = new Set(['Prometheus', 'PrometheusAgent', 'Alertmanager', 'ThanosRuler']);

/** Health of a live monitoring.coreos.com object. */
export function prometheusHealth(kind: string, obj: LiveObject): Health {
  if (!WORKLOADS.has(kind)) return bindingsHealth(obj);
  const pending = pendingChange(obj);
  if (pending) return pending;
  const reconciled = condition(obj, 'Reconciled');
  if (reconciled?.status === 'False') return degraded(said(reconciled, 'not reconciled'));
  const available = condition(obj, 'Available');
  if (available?.status === 'True') return healthy();
  if (available) return degraded(said(available, `availability ${available.status ?? 'unknown'}`));
  return progressing('waiting for the Prometheus Operator');
}

function bindingsHealth(obj: LiveObject): Health {
  const bindings = (obj.status?.['bindings'] ?? []) as { name?: string; conditions?: Condition[] }[];
  for (const b of Array.isArray(bindings) ? bindings : []) {
    const refused = (b.conditions ?? []).find((c) => c.type === 'Accepted' && c.status === 'False');
    if (refused) return degraded(`not accepted by ${b.name ?? 'its workload'}: ${said(refused, 'invalid')}`);
  }
  return healthy();
}
