/**
 * The AppSet controller's part of a rolling sync (issue 27 item 2): plan where the rollout is from the generated
 * Apps as last seen (src/core/appset-rollout.ts) and request a Sync on the Apps whose turn it is, written as the API
 * writes operations (guarded by resourceVersion; an App with an operation pending is left alone). Their own
 * automated sync is off (the generated spec says so), so nothing else syncs them on a new revision.
 */
import type { Logger } from 'pino';
import type { AppResource } from '../../core/app-schema.ts';
import { writeOperation } from '../../core/app-state.ts';
import { planRollout } from '../../core/appset-rollout.ts';
import type { AppSetResource, RolloutStatus } from '../../core/appset-schema.ts';
import { ConflictError, describeError, NotFoundError } from '../../core/errors.ts';
import type { ObjectClient } from '../../kube/index.ts';
import { appOperationIO } from '../operation-io.ts';

/** Who a rollout's Sync says asked for it (status.operationState.triggeredBy). */
export const rolloutRequester = (appSet: string): string => `appset:${appSet}`;

/**
 * Plans the rollout of `appSet` over `apps` (its generated Apps) and requests the Syncs it calls for; answers the
 * rollout status, or undefined without `strategy.rollingSync`, and the errors of requests that failed.
 */
export async function runRollout(
  deps: { mgmt: ObjectClient; logger: Logger; mayWrite: () => boolean },
  appSet: AppSetResource,
  apps: readonly AppResource[],
): Promise<{ status: RolloutStatus | undefined; errors: string[] }> {
  const steps = appSet.spec.strategy?.rollingSync.steps;
  if (!steps) return { status: undefined, errors: [] };
  const plan = planRollout(
    steps,
    apps.filter((a) => !a.metadata.deletionTimestamp),
  );
  const errors: string[] = [];
  const byName = new Map(apps.map((a) => [a.metadata.name, a]));
  for (const name of plan.sync) {
    const app = byName.get(name);
    if (!app || !deps.mayWrite()) continue;
    try {
      await requestSync(deps.mgmt, app, rolloutRequester(appSet.metadata.name));
      deps.logger.info({ appSet: appSet.metadata.name, app: name, step: plan.status.currentStep }, 'rollout: sync');
    } catch (err) {
      // A race with another writer (an operation someone asked for meanwhile): the next run sees it.
      if (err instanceof ConflictError || err instanceof NotFoundError) continue;
      errors.push(`App "${name}": cannot request the rollout's sync: ${describeError(err)}`);
    }
  }
  return { status: plan.status, errors };
}

/** Writes a Sync request on `app` (as read), guarded by its resourceVersion. */
async function requestSync(mgmt: ObjectClient, app: AppResource, triggeredBy: string): Promise<void> {
  await writeOperation(appOperationIO(mgmt, app), app, { kind: 'Sync', triggeredBy });
}
