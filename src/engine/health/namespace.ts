/**
 * Namespace health: Terminating is Progressing (its contents are being deleted), and Degraded once the namespace
 * controller reports it cannot finish (a `NamespaceDeletion…Failure` or `NamespaceFinalizersRemaining` condition).
 */
import { degraded, type Health, healthy, type LiveObject, progressing, said } from './status.ts';

const STUCK = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
];

/** Health of a live v1 Namespace. */
export function namespaceHealth(obj: LiveObject): Health {
  if (obj.status?.['phase'] !== 'Terminating') return healthy();
  const conditions = (obj.status?.['conditions'] ?? []) as {
    type: string;
    status?: string;
    reason?: string;
    message?: string;
  }[];
  const stuck = conditions.find((c) => STUCK.includes(c.type) && c.status === 'True');
  return stuck ? degraded(`terminating, ${said(stuck, 'cannot delete its contents')}`) : progressing('terminating');
}
