/** How an org health check looks in the API (docs/api.md "Health checks"). */
import type { Static } from 'typebox';
import type { HealthCheckRecord } from '../../store/health-checks.ts';
import type { HealthCheck } from './contract.ts';

/** The API view of a check (snake_case fields; the optional expressions only when set). */
export function healthCheckView(r: HealthCheckRecord): Static<typeof HealthCheck> {
  return {
    id: r.id,
    api_version: r.apiVersion,
    kind: r.kind,
    current: r.current,
    ...(r.inProgress ? { in_progress: r.inProgress } : {}),
    ...(r.failed ? { failed: r.failed } : {}),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
