/**
 * The one rule of an operation's outcome: given what a client sees of an App (the status view, contract §2.2) and an
 * operation id, whether that operation is still running, ended well, ended badly, or is held. The server's status
 * `wait` (through app-state.ts's `isWaitTerminal`), `svc … --wait` and the web UI's operation banner all decide with
 * it, so the three say the same thing at the same moment. Pure, with no import: the web UI bundles it.
 *
 * An operation is
 *  - running while it is requested (`pending_operation` is its id, or the view does not show it yet), while its
 *    record says Running, and while the App settles after it (Syncing, or not Healthy yet);
 *  - held while its record says Held (the App is frozen, or the sync waits for approval);
 *  - failed when its record says Failed, or when the App turned Degraded, Unknown or Stalled after it;
 *  - succeeded when it Succeeded and the App is Synced and Healthy, or, for a Rollback, Healthy at the revision it
 *    rolled back to: a Git rollback leaves the App OutOfSync against the branch head by design (contract §3 rule 3),
 *    and waiting for Synced would wait forever.
 * Without an id, the App's latest operation is meant (the one requested, else the one recorded); an App that never
 * had one is judged by its state alone (contract §4.2 rule 3: Synced and Healthy, Degraded or Unknown).
 */

/**
 * What the rule reads: the status view's fields (contract §2.2), as the API answers them and the generated client
 * types them (every field optional, `operationState` an open object).
 */
export interface OutcomeView {
  sync_status?: string;
  health?: string;
  health_reason?: string;
  revision?: string;
  operationState?: Readonly<Record<string, unknown>> | null;
  /** The id of an operation requested and not picked up yet, else null. */
  pending_operation?: string | null;
  /** False while the operator has not reported on the App at all (known server-side only; the view then says Unknown). */
  reported?: boolean;
  /** The App is Stalled for its current generation (known server-side only; its operation is Failed anyway). */
  stalled?: boolean;
}

/** `status.operationState` as the rule reads it. */
export interface OperationRecord {
  kind?: string;
  id?: string;
  phase?: string;
  message?: string;
  revision?: string;
}

/** The string fields of a status view's `operationState`. */
export function recordOf(state: Readonly<Record<string, unknown>> | null | undefined): OperationRecord | undefined {
  if (!state) return undefined;
  const text = (key: string) => (typeof state[key] === 'string' ? (state[key] as string) : undefined);
  const record: OperationRecord = {};
  for (const key of ['kind', 'id', 'phase', 'message', 'revision'] as const) {
    const value = text(key);
    if (value !== undefined) record[key] = value;
  }
  return record;
}

/** Where an operation stands, with a one-line summary for people. */
export type OperationOutcome =
  | { state: 'running'; summary: string }
  | { state: 'succeeded'; summary: string }
  | { state: 'failed'; summary: string }
  | { state: 'held'; summary: string };

/** True once the operation has ended (succeeded or failed) or is held: a wait for it is over. */
export function hasEnded(outcome: OperationOutcome): boolean {
  return outcome.state !== 'running';
}

/** `revision` shortened for display (a Git SHA to 12 characters; digests and tags as they are). */
export function shortRevision(revision: string | undefined): string {
  if (!revision) return '';
  return /^[0-9a-f]{40}$/.test(revision) ? revision.slice(0, 12) : revision;
}

/** Where operation `id` (default: the App's latest) stands, as `view` shows the App. */
export function operationOutcome(view: OutcomeView, id?: string): OperationOutcome {
  const where = `sync ${view.sync_status ?? 'Unknown'}, health ${view.health ?? 'Unknown'}`;
  const record = recordOf(view.operationState);
  const pending = view.pending_operation ?? undefined;
  const wanted = id ?? pending ?? record?.id;
  if (view.reported === false || (wanted !== undefined && (pending === wanted || record?.id !== wanted)))
    return { state: 'running', summary: `waiting for the operator to pick the operation up (${where})` };
  const kind = record?.kind ?? 'operation';
  switch (record?.phase) {
    case 'Running': {
      const step = stepOf(view.operationState);
      return { state: 'running', summary: `${kind} running${step ? `, ${step}` : ''} (${where})` };
    }
    case 'Failed':
      return { state: 'failed', summary: `${kind} failed: ${record.message ?? ''}`.trim() };
    case 'Held':
      return { state: 'held', summary: `held: ${record.message ?? 'waiting for approval'}` };
    default:
      return settled(view, record, where);
  }
}

/**
 * The step a running staged sync is at, from `operationState.syncPhase` and `wave` (`PreSync wave -1`); undefined for
 * an operation that does not show one (a plain sync, or one not staged yet).
 */
export function stepOf(state: Readonly<Record<string, unknown>> | null | undefined): string | undefined {
  const phase = state?.['syncPhase'];
  const wave = state?.['wave'];
  if (typeof phase !== 'string') return undefined;
  return typeof wave === 'number' ? `${phase} wave ${wave}` : phase;
}

/** True when `record` is a Rollback to `revision` (the applied one). */
function rolledBackTo(record: OperationRecord | undefined, revision: string | undefined): boolean {
  return record?.kind === 'Rollback' && record.revision !== undefined && record.revision === revision;
}

/** An operation that Succeeded (or an App with none): the App's state after it decides. */
function settled(view: OutcomeView, record: OperationRecord | undefined, where: string): OperationOutcome {
  const kind = record?.kind ?? 'operation';
  const sync = view.sync_status ?? 'Unknown';
  const health = view.health ?? 'Unknown';
  if (sync === 'Syncing') return { state: 'running', summary: `${kind} running (${where})` };
  if (view.stalled) return { state: 'failed', summary: `Stalled: the App's spec cannot work (${where})` };
  if (health === 'Degraded') {
    return { state: 'failed', summary: `Degraded${view.health_reason ? `: ${view.health_reason}` : ''}` };
  }
  if (sync === 'Unknown' || health === 'Unknown') {
    return { state: 'failed', summary: `${where} after the ${kind}` };
  }
  if (health === 'Healthy' && sync === 'Synced') {
    return { state: 'succeeded', summary: `Synced and Healthy at ${shortRevision(view.revision)}` };
  }
  if (health === 'Healthy' && rolledBackTo(record, view.revision)) {
    return {
      state: 'succeeded',
      summary: `rolled back to ${shortRevision(view.revision)} and Healthy (${sync} with the source's head until the next sync)`,
    };
  }
  return { state: 'running', summary: `${kind} ${record?.phase ?? 'done'}, ${where}` };
}
