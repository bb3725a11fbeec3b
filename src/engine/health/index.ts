/**
 * Health dispatcher: one check per kind (by group/kind), group-wide checks for the ecosystems that share one
 * convention (Flux, Crossplane, Prometheus Operator), the generic kstatus rules (./generic.ts) for every other kind,
 * Missing when absent; and the aggregate over an App's resources ("worse of", naming the resources that made it so).
 * A resource's message is `<group>/<Kind> <name>: <detail>` (`apps/Deployment api: 1/3 ready`; core kinds without
 * a group: `Service web: …`).
 */

import { rolloutHealth } from './argo-rollouts.ts';
import { apiServiceHealth, crdHealth } from './availability.ts';
import { certificateHealth, certificateRequestHealth, issuerHealth } from './cert-manager.ts';
import { cronJobHealth } from './cronjob.ts';
import { crossplaneHealth, isCrossplaneGroup } from './crossplane.ts';
import { daemonSetHealth } from './daemonset.ts';
import { deploymentHealth } from './deployment.ts';
import { externalSecretHealth, secretStoreHealth } from './external-secrets.ts';
import { fluxHealth, isFluxGroup } from './flux.ts';
import { genericHealth } from './generic.ts';
import { hpaHealth } from './hpa.ts';
import { ingressHealth } from './ingress.ts';
import { jobHealth } from './job.ts';
import { namespaceHealth } from './namespace.ts';
import { pdbHealth } from './pdb.ts';
import { podHealth } from './pod.ts';
import { prometheusHealth } from './prometheus.ts';
import { pvcHealth } from './pvc.ts';
import { replicaSetHealth } from './replicaset.ts';
import { serviceHealth } from './service.ts';
import { statefulSetHealth } from './statefulset.ts';
import { type Health, type HealthStatus, type LiveObject, worse } from './status.ts';

export { HEALTH_ORDER, type Health, type HealthStatus, type LiveObject, worse } from './status.ts';

type Check = (obj: LiveObject) => Health;

const CHECKS: Record<string, Check> = {
  'apps/Deployment': deploymentHealth,
  'apps/StatefulSet': statefulSetHealth,
  'apps/DaemonSet': daemonSetHealth,
  'apps/ReplicaSet': replicaSetHealth,
  'batch/Job': jobHealth,
  'batch/CronJob': cronJobHealth,
  '/Pod': podHealth,
  '/Service': serviceHealth,
  '/PersistentVolumeClaim': pvcHealth,
  '/Namespace': namespaceHealth,
  'networking.k8s.io/Ingress': ingressHealth,
  'autoscaling/HorizontalPodAutoscaler': hpaHealth,
  'policy/PodDisruptionBudget': pdbHealth,
  'apiregistration.k8s.io/APIService': apiServiceHealth,
  'apiextensions.k8s.io/CustomResourceDefinition': crdHealth,
  'cert-manager.io/Certificate': certificateHealth,
  'cert-manager.io/CertificateRequest': certificateRequestHealth,
  'cert-manager.io/Issuer': issuerHealth,
  'cert-manager.io/ClusterIssuer': issuerHealth,
  'external-secrets.io/ExternalSecret': externalSecretHealth,
  'external-secrets.io/ClusterExternalSecret': externalSecretHealth,
  'external-secrets.io/PushSecret': externalSecretHealth,
  'external-secrets.io/SecretStore': secretStoreHealth,
  'external-secrets.io/ClusterSecretStore': secretStoreHealth,
  'argoproj.io/Rollout': rolloutHealth,
};

/** The API group of an apiVersion (`apps/v1` → `apps`, `v1` → ``). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/** How a resource is named in messages and reasons: `apps/Deployment api`, `Service web`. */
export function resourceLabel(ref: { apiVersion: string; kind: string; name: string }): string {
  const group = groupOf(ref.apiVersion);
  return `${group ? `${group}/` : ''}${ref.kind} ${ref.name}`;
}

/** The built-in check of a kind: its own, its ecosystem's, else the generic rules. */
function builtInCheck(group: string, kind: string): Check {
  const own = CHECKS[`${group}/${kind}`];
  if (own) return own;
  if (isFluxGroup(group)) return fluxHealth;
  if (isCrossplaneGroup(group)) return (obj) => crossplaneHealth(group, obj);
  if (group === 'monitoring.coreos.com') return (obj) => prometheusHealth(kind, obj);
  return genericHealth;
}

/** Health of a live object by the built-in checks, its message the detail only. */
export function builtInHealth(ref: { apiVersion: string; kind: string }, live: LiveObject): Health {
  return builtInCheck(groupOf(ref.apiVersion), ref.kind)(live);
}

/** `health` with its message prefixed by the resource's label. */
export function labelled(ref: { apiVersion: string; kind: string; name: string }, health: Health): Health {
  return health.message ? { status: health.status, message: `${resourceLabel(ref)}: ${health.message}` } : health;
}

/** Health of one resource: `live` is the object read from the cluster, or undefined when it does not exist. */
export function resourceHealth(
  ref: { apiVersion: string; kind: string; name: string },
  live: LiveObject | undefined,
): Health {
  if (!live) return labelled(ref, { status: 'Missing', message: 'not found' });
  return labelled(ref, builtInHealth(ref, live));
}

/** How many resources a reason names at most. */
export const REASON_NAMES = 3;

/**
 * The aggregate of an App: worse of all, and a reason naming the resources that made it so (those whose health is
 * the aggregate's, in order, at most REASON_NAMES, then how many more), joined by `; `.
 */
export function aggregateHealth(items: readonly Health[]): { status: HealthStatus; reason: string } {
  let status: HealthStatus = 'Healthy';
  for (const h of items) status = worse(status, h.status);
  if (status === 'Healthy') return { status, reason: '' };
  const causes = items.filter((h) => h.status === status).map((h) => h.message ?? h.status);
  const named = causes.slice(0, REASON_NAMES).join('; ');
  const more = causes.length - REASON_NAMES;
  return { status, reason: more > 0 ? `${named}; and ${more} more` : named };
}
