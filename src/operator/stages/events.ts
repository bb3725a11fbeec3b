/**
 * Kubernetes Events on the App (core/v1), one per operation outcome and per sync, so `kubectl describe app` and
 * the API's events view show what the operator did.
 */
import { randomBytes } from 'node:crypto';
import type { AppResource } from '../../core/app-schema.ts';
import type { KubeClient } from '../../kube/index.ts';
import { microTime } from '../../kube/index.ts';

/**
 * The annotation on an Event naming the trace (W3C trace id, 32 hex digits) of the reconcile that recorded it, when
 * tracing is on (docs/operator.md "Tracing"): the way from `kubectl describe app` to the trace in a tracing backend.
 */
export const TRACE_ID_ANNOTATION = 'cd.svc.space/trace-id';

/** One Event: on which App, what, when it happened, and the trace of the reconcile that announced it. */
export interface EventRecord {
  app: AppResource;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  at: Date;
  traceId?: string | undefined;
}

/** Records one Event; a failure rejects (the caller logs it, never the reconcile). */
export async function recordEvent(client: KubeClient, event: EventRecord, identity: string): Promise<void> {
  const { app, type, reason, message, at: now, traceId } = event;
  const ns = app.metadata.namespace ?? 'default';
  await client.request(`/api/v1/namespaces/${encodeURIComponent(ns)}/events`, {
    method: 'POST',
    body: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${app.metadata.name}.${randomBytes(6).toString('hex')}`,
        namespace: ns,
        ...(traceId ? { annotations: { [TRACE_ID_ANNOTATION]: traceId } } : {}),
      },
      involvedObject: {
        apiVersion: app.apiVersion,
        kind: app.kind,
        name: app.metadata.name,
        namespace: ns,
        uid: app.metadata.uid,
        resourceVersion: app.metadata.resourceVersion,
      },
      type,
      reason,
      message: message.slice(0, 1024),
      source: { component: 'svc-operator' },
      reportingComponent: 'svc-operator',
      reportingInstance: identity,
      action: reason,
      firstTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      lastTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      eventTime: microTime(now),
      count: 1,
    },
  });
}
