/**
 * What the reconciler tells the world after writing status: Kubernetes Events on the App (one per operation
 * outcome, per automated sync, per prune) and chat notifications. Never throws into the reconcile.
 */
import type { Logger } from 'pino';
import type { AppResource, Operation, OperationState } from '../core/app-schema.ts';
import { describeError } from '../core/errors.ts';
import type { ObjectClient } from '../kube/index.ts';
import type { OperatorMetrics } from './metrics.ts';
import { buildPayload, notificationsFor, postNotification, wants } from './notify.ts';
import { recordEvent } from './stages/events.ts';
import type { Outcome } from './stages/status.ts';

/** An operation outcome about to be recorded. */
export interface OpOutcome {
  operation: Operation | undefined;
  phase: OperationState['phase'];
  revision?: string;
  message: string;
}

export interface AnnouncerDeps {
  mgmt: ObjectClient;
  identity: string;
  publicURL: string;
  logger: Logger;
  metrics: OperatorMetrics;
}

/** Events and notifications of one operator process. */
export class Announcer {
  readonly #d: AnnouncerDeps;

  constructor(deps: AnnouncerDeps) {
    this.#d = deps;
  }

  /** Events and notifications after the status is written. Never throws. */
  async announce(
    app: AppResource,
    outcome: Outcome,
    op: OpOutcome | undefined,
    sync: 'success' | 'failure' | undefined,
    failedRevision?: string,
  ): Promise<void> {
    const prev = app.status?.operationState;
    const repeated =
      op !== undefined &&
      prev !== undefined &&
      prev.phase === op.phase &&
      prev.message === op.message &&
      prev.initiatedAt === (op.operation?.initiatedAt ?? prev.initiatedAt) &&
      prev.kind === (op.operation?.kind ?? prev.kind);
    if (op && !repeated) {
      const type = op.phase === 'Failed' ? 'Warning' : 'Normal';
      await this.event(
        app,
        type,
        `Operation${op.phase}`,
        `${op.operation?.kind ?? 'Sync'} ${op.phase.toLowerCase()}: ${op.message}`,
      );
      this.#d.metrics.operation(op.operation?.kind ?? 'Sync', op.phase);
    } else if (sync === 'success') {
      await this.event(app, 'Normal', 'Synced', `applied revision ${outcome.applied?.revision ?? ''}`);
    }
    const notes = notificationsFor(app, {
      sync,
      ...(outcome.applied ? { appliedRevision: outcome.applied.revision } : {}),
      ...(outcome.health ? { health: outcome.health } : {}),
      message: sync === 'failure' ? (outcome.error?.message ?? '') : (op?.message ?? 'synced'),
      failedRevision: failedRevision ?? outcome.observedRevision ?? '',
    });
    for (const n of notes) {
      const url = app.spec.notifications?.chat?.webhookURL;
      if (!url || !wants(app, n.event)) continue;
      const payload = buildPayload(app, n.event, { ...n, publicURL: this.#d.publicURL, at: outcome.now });
      const problem = await postNotification(url, payload);
      if (problem)
        this.#d.logger.warn(
          { app: { namespace: app.metadata.namespace, name: app.metadata.name }, event: n.event },
          problem,
        );
    }
  }

  /** Records a Kubernetes Event on the App; a failure is logged, never thrown. */
  async event(app: AppResource, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    try {
      await recordEvent(this.#d.mgmt.client, app, type, reason, message, this.#d.identity);
    } catch (err) {
      this.#d.logger.warn(
        { app: { namespace: app.metadata.namespace, name: app.metadata.name }, err: describeError(err) },
        'cannot record event',
      );
    }
  }
}
