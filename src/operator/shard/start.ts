/** Wires sharding into a running operator: the membership drives the App controller's share and the AppSet controller. */
import type { Logger } from 'pino';
import type { AppResource } from '../../core/app-schema.ts';
import type { AppKey } from '../../engine/labels.ts';
import type { KubeClient } from '../../kube/index.ts';
import type { AppSetController } from '../appsets/controller.ts';
import type { Controller } from '../controller.ts';
import type { OperatorMetrics } from '../metrics.ts';
import { type ShardBy, shardKey } from './assign.ts';
import { ShardMembership } from './membership.ts';

/** The shard key of the AppSet controller: one replica runs it (not a valid App key, so it never collides). */
export const APPSETS_SHARD_KEY = ' appsets';

/** The shard key of an App, by App or by its destination cluster (read from the cache; an unknown App by itself). */
export function appShardKey(by: ShardBy, app: AppKey, cached: (key: AppKey) => AppResource | undefined): string {
  return shardKey(by, app, by === 'cluster' ? cached(app)?.spec.destination.cluster : undefined);
}

/** What sharding needs from the operator. */
export interface ShardingInput {
  client: KubeClient;
  namespace: string;
  group: string;
  identity: string;
  logger: Logger;
  controller: Controller;
  appSets: AppSetController;
  metrics: OperatorMetrics;
  /** The shard key of an App (see appShardKey). */
  keyOf: (app: AppKey) => string;
  lease?: { durationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number } | undefined;
}

/**
 * Starts sharding: the work queues run, and every reconcile asks the membership first (the controller's `owns` and
 * the reconciler's fence must call the returned membership's `allows`).
 */
export function startSharding(input: ShardingInput): ShardMembership {
  const { controller, appSets, metrics, lease } = input;
  const share = () => {
    const apps = controller.ownedCount();
    metrics.shard(apps, membership.members.length);
    return apps;
  };
  const membership: ShardMembership = new ShardMembership({
    client: input.client,
    namespace: input.namespace,
    group: input.group,
    identity: input.identity,
    logger: input.logger,
    ...(lease?.durationMs ? { leaseDurationMs: lease.durationMs } : {}),
    ...(lease?.renewDeadlineMs ? { renewDeadlineMs: lease.renewDeadlineMs } : {}),
    ...(lease?.retryPeriodMs ? { retryPeriodMs: lease.retryPeriodMs } : {}),
    onRelease: async () => {
      if (!membership.allows(APPSETS_SHARD_KEY)) await appSets.stopProcessing();
      await controller.released();
    },
    onActive: (previous) => {
      // Only the Apps gained: those owned before too were never stopped.
      controller.queueOwned((app) => previous.owner(input.keyOf(app)) !== input.identity);
      if (membership.allows(APPSETS_SHARD_KEY)) appSets.startProcessing();
      share();
    },
    share,
  });
  controller.startProcessing();
  membership.start();
  return membership;
}
