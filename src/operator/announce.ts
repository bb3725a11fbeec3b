/**
 * What the reconciler tells the world after writing status: Kubernetes Events on the App (one per operation
 * outcome, per automated sync, per prune) and notifications (handed to the Notifier). Both are sent in the
 * background: the reconcile never waits for a receiver nor for the apiserver's Event writes, and is never thrown
 * into. An Event keeps the time it was announced, not the time its POST ran.
 */
import type { Logger } from 'pino';
import type { AppResource, Operation, OperationResource, OperationState } from '../core/app-schema.ts';
import type { AutoRollbackRecord } from '../core/auto-rollback.ts';
import { BackgroundQueue } from '../core/concurrency.ts';
import { describeError } from '../core/errors.ts';
import type { ObjectClient } from '../kube/index.ts';
import type { OutboundPolicy } from '../net/outbound.ts';
import { activeTraceId } from '../trace.ts';
import type { OperatorMetrics } from './metrics.ts';
import { Notifier } from './notifier.ts';
import { buildPayload, channelsFor, notificationsFor } from './notify.ts';
import { type EventRecord, recordEvent } from './stages/events.ts';
import type { Outcome } from './stages/status.ts';

/** An operation outcome about to be recorded. */
export interface OpOutcome {
  operation: Operation | undefined;
  phase: OperationState['phase'];
  revision?: string;
  message: string;
  /** Why a Failed operation failed (its SyncError reason). */
  reason?: string;
  /** What it did to each object (operationState.resources), once it ended. */
  resources?: OperationResource[];
}

export interface AnnouncerDeps {
  mgmt: ObjectClient;
  identity: string;
  publicURL: string;
  logger: Logger;
  metrics: OperatorMetrics;
  /** Where notifications may go (SVC_OUTBOUND_SCOPE). */
  outbound: OutboundPolicy;
}

/** Event POSTs in flight at once; more wait in order. */
const EVENT_CONCURRENCY = 4;
/** Events kept waiting at most; beyond it the oldest is dropped (and logged). */
const EVENT_QUEUE_MAX = 5000;

/** True when `op` records what the App's status records already (same phase, message and request): no new event. */
function repeats(prev: OperationState | undefined, op: OpOutcome): boolean {
  return (
    prev !== undefined &&
    prev.phase === op.phase &&
    prev.message === op.message &&
    prev.initiatedAt === (op.operation?.initiatedAt ?? prev.initiatedAt) &&
    prev.kind === (op.operation?.kind ?? prev.kind)
  );
}

/** Events and notifications of one operator process. */
export class Announcer {
  readonly #deps: AnnouncerDeps;
  readonly #notifier: Notifier;
  readonly #events: BackgroundQueue<EventRecord>;

  constructor(deps: AnnouncerDeps) {
    this.#deps = deps;
    this.#notifier = new Notifier({
      outbound: deps.outbound,
      logger: deps.logger,
      onGiveUp: async (app, message) => this.event(app, 'Warning', 'NotificationFailed', message),
    });
    this.#events = new BackgroundQueue<EventRecord>({
      concurrency: EVENT_CONCURRENCY,
      max: EVENT_QUEUE_MAX,
      run: (job) => recordEvent(deps.mgmt.client, job, deps.identity),
      onDrop: (job) =>
        deps.logger.warn({ app: appRef(job.app), reason: job.reason }, 'event dropped: too many waiting'),
      onError: (job, err) =>
        deps.logger.warn({ app: appRef(job.app), reason: job.reason, err: describeError(err) }, 'cannot record event'),
    });
  }

  /** Waits for the notifications and Events still being sent (a clean shutdown; a notification given up adds one). */
  async drain(): Promise<void> {
    await this.#notifier.drain();
    await this.#events.drain();
  }

  /** Events and notifications after the status is written, handed to the background. Never throws. */
  announce(
    app: AppResource,
    outcome: Outcome,
    op: OpOutcome | undefined,
    sync: 'success' | 'failure' | undefined,
    failedRevision?: string,
  ): void {
    if (op && !repeats(app.status?.operationState, op)) {
      const type = op.phase === 'Failed' ? 'Warning' : 'Normal';
      this.event(
        app,
        type,
        `Operation${op.phase}`,
        `${op.operation?.kind ?? 'Sync'} ${op.phase.toLowerCase()}: ${op.message}`,
      );
      this.#deps.metrics.operation(op.operation?.kind ?? 'Sync', op.phase);
    } else if (sync === 'success') {
      this.event(app, 'Normal', 'Synced', `applied revision ${outcome.applied?.revision ?? ''}`);
    }
    this.#healthChanged(app, outcome);
    this.#notify(app, outcome, op, sync, failedRevision);
  }

  /** Sends the notifications the App's channels subscribe to for this outcome (in the background). */
  #notify(
    app: AppResource,
    outcome: Outcome,
    op: OpOutcome | undefined,
    sync: 'success' | 'failure' | undefined,
    failedRevision: string | undefined,
  ): void {
    const notes = notificationsFor(app, {
      sync,
      ...(outcome.applied ? { appliedRevision: outcome.applied.revision } : {}),
      ...(outcome.health ? { health: outcome.health } : {}),
      message:
        sync === 'failure' ? (outcome.error?.message ?? outcome.selfHealPaused ?? '') : (op?.message ?? 'synced'),
      failedRevision: failedRevision ?? outcome.observedRevision ?? '',
    });
    for (const n of notes) {
      const channels = channelsFor(app, n.event);
      if (channels.length === 0) continue;
      const payload = buildPayload(app, n.event, { ...n, publicURL: this.#deps.publicURL, at: outcome.now });
      for (const channel of channels) this.#notifier.send(app, channel, payload);
    }
  }

  /**
   * A `HealthChanged` Event when the App's health moved (Warning into Degraded, Normal otherwise), naming the
   * resources that made it so (the reason: up to three, `apps/Deployment api: 1/3 ready`).
   */
  #healthChanged(app: AppResource, outcome: Outcome): void {
    const before = app.status?.healthStatus;
    const after = outcome.health?.status;
    if (!before || !after || before === after) return;
    const reason = outcome.health?.reason ? `: ${outcome.health.reason}` : '';
    this.event(
      app,
      after === 'Degraded' ? 'Warning' : 'Normal',
      'HealthChanged',
      `health ${before} → ${after}${reason}`,
    );
  }

  /**
   * An automatic rollback was requested (src/core/auto-rollback.ts): a Warning `AutoRollback` Event, and the
   * `rollback.automatic` notification to the channels that asked to hear about the App turning Degraded.
   */
  autoRollback(app: AppResource, r: AutoRollbackRecord, at: string): void {
    const message = `Degraded for ${r.after} at revision ${r.from}: rolling back to ${r.to} and holding it (release with POST …/release)`;
    this.event(app, 'Warning', 'AutoRollback', message);
    const channels = channelsFor(app, 'rollback.automatic');
    if (channels.length === 0) return;
    const details = { revision: r.to, phase: 'RolledBack', message, publicURL: this.#deps.publicURL, at };
    const payload = buildPayload(app, 'rollback.automatic', details);
    for (const channel of channels) this.#notifier.send(app, channel, payload);
  }

  /** Records a Kubernetes Event on the App in the background; a failure is logged, never thrown. */
  event(app: AppResource, type: 'Normal' | 'Warning', reason: string, message: string): void {
    // The trace is read now, in the reconcile's context: the POST runs later, in the queue's.
    this.#events.push({ app, type, reason, message, at: new Date(), traceId: activeTraceId() });
  }
}

function appRef(app: AppResource): { namespace: string | undefined; name: string } {
  return { namespace: app.metadata.namespace, name: app.metadata.name };
}
