/** Job health: Complete is Healthy, Failed is Degraded, anything else is still running. */
import { condition, count, type Health, type LiveObject } from './status.ts';

/** Health of a live batch/v1 Job. */
export function jobHealth(obj: LiveObject): Health {
  const failed = condition(obj, 'Failed');
  if (failed?.status === 'True') {
    return { status: 'Degraded', message: `failed${failed.reason ? ` (${failed.reason})` : ''}` };
  }
  if (condition(obj, 'Complete')?.status === 'True') return { status: 'Healthy' };
  if (obj.spec?.['suspend'] === true) return { status: 'Healthy', message: `suspended` };
  const completions = count(obj.spec, 'completions', 1);
  return {
    status: 'Progressing',
    message: `${count(obj.status, 'succeeded')}/${completions} completed, ${count(obj.status, 'active')} active`,
  };
}
