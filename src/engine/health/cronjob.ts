/**
 * CronJob health: suspended is Healthy (documented in docs/compatibility.md); the last scheduled run that is no
 * longer active and did not succeed (`lastScheduleTime` after `lastSuccessfulTime`) is Degraded; otherwise Healthy.
 */
import { degraded, type Health, healthy, type LiveObject, suspended } from './status.ts';

/** Health of a live batch/v1 CronJob. */
export function cronJobHealth(obj: LiveObject): Health {
  if (suspended(obj)) return healthy('suspended');
  const scheduled = time(obj.status?.['lastScheduleTime']);
  const succeeded = time(obj.status?.['lastSuccessfulTime']);
  const active = obj.status?.['active'];
  const running = Array.isArray(active) && active.length > 0;
  if (scheduled !== undefined && !running && (succeeded === undefined || succeeded < scheduled)) {
    return degraded(`last run (scheduled ${obj.status?.['lastScheduleTime']}) did not succeed`);
  }
  return healthy();
}

function time(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}
