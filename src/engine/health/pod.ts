/** Pod health: Succeeded or Running with every container ready is Healthy; Failed or a crashing container is Degraded. */
import type { Health, LiveObject } from './status.ts';

const BAD_WAITING = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
]);

interface ContainerStatus {
  name?: string;
  ready?: boolean;
  state?: { waiting?: { reason?: string } };
}

/** Health of a live v1 Pod. */
export function podHealth(obj: LiveObject): Health {
  const phase = obj.status?.['phase'];
  const statuses = (obj.status?.['containerStatuses'] as ContainerStatus[] | undefined) ?? [];
  const ready = statuses.filter((c) => c.ready === true).length;
  const total = Math.max(statuses.length, ((obj.spec?.['containers'] as unknown[]) ?? []).length);
  const counts = `${ready}/${total} containers ready`;
  if (phase === 'Succeeded') return { status: 'Healthy' };
  if (phase === 'Failed') {
    const reason = obj.status?.['reason'];
    return { status: 'Degraded', message: `failed${typeof reason === 'string' ? ` (${reason})` : ''}` };
  }
  const crashing = statuses.find((c) => BAD_WAITING.has(c.state?.waiting?.reason ?? ''));
  if (crashing) {
    return { status: 'Degraded', message: `${counts}, ${crashing.name} ${crashing.state?.waiting?.reason}` };
  }
  if (phase === 'Running' && total > 0 && ready === total) return { status: 'Healthy' };
  return { status: 'Progressing', message: `${counts}${typeof phase === 'string' ? `, ${phase}` : ''}` };
}
