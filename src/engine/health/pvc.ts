/** PersistentVolumeClaim health: Bound is Healthy, Pending is Progressing, Lost is Degraded. */
import { degraded, type Health, healthy, type LiveObject, progressing } from './status.ts';

/** Health of a live v1 PersistentVolumeClaim. */
export function pvcHealth(obj: LiveObject): Health {
  const phase = obj.status?.['phase'];
  if (phase === 'Bound') return healthy();
  if (phase === 'Lost') return degraded('volume lost');
  return progressing(`${typeof phase === 'string' ? phase : 'Pending'}: waiting for a volume`);
}
