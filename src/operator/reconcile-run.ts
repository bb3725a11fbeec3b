/**
 * The state of one reconcile of a live App, filled in by the reconciler's stages in their order (src/operator/
 * reconciler.ts, `#stages`): each stage reads what the stages before it found and adds its own. A field is set by
 * the stage named beside it and read only by later ones; a failure reads `progress` (how far the run got).
 */
import type { AppResource, BlockedBy, Operation, OperationResource } from '../core/app-schema.ts';
import type { AutoRollbackRecord } from '../core/auto-rollback.ts';
import type { WindowVerdict } from '../core/windows.ts';
import type { ObjectDrift } from '../engine/drift.ts';
import type { HealthResult } from '../engine/health/assess.ts';
import type { InventoryEntry, LoadedInventory } from '../engine/inventory.ts';
import type { AppKey } from '../engine/labels.ts';
import type { ResolvedSource, SourceDriver } from '../engine/sources/index.ts';
import type { SyncPlan } from '../engine/sync-plan.ts';
import type { AnyObject, ObjectClient } from '../kube/index.ts';
import type { OpOutcome } from './announce.ts';
import type { DestinationCache } from './live/index.ts';
import type { Intent } from './stages/decide.ts';
import type { Outcome } from './stages/status.ts';

/** How far a reconcile got, for the status of a failure. */
export interface Progress {
  /** A sync was (or would have been) attempted: failures notify and record a SyncFailed event. */
  syncAttempted: boolean;
  head?: string;
  revision?: string;
  /** What status.observedRevision records (the source's `observed`, else `head`). */
  observed?: string;
  objects?: AnyObject[];
  /**
   * What the App owns so far, when it changed: an inventory just migrated from a pre-inventory status, or the
   * previous inventory plus what a partly failed apply created (written even on failure, so prune reaches it).
   */
  inventory?: InventoryEntry[];
}

/** One reconcile of a live App. */
export class ReconcileRun {
  /** The App as the reconcile read it (the source is resolved and rendered from this version). */
  readonly read: AppResource;
  readonly key: AppKey;
  readonly now = new Date().toISOString();
  /** What the run will do: decided from the App, then held by the dependencies stage while it is blocked. */
  #intent: Intent;
  /** dependencies: the dependencies keeping the App from syncing (status.blockedBy). */
  blockedBy: BlockedBy[] = [];
  /** windows: whether delivery windows let a sync run now, and when to look again while they do not. */
  window: WindowVerdict = { open: true, active: [] };
  windowRequeueMs: number | undefined;
  /** apply, prune, hooks: what the operation did to each object, in order (operationState.resources). */
  readonly results: OperationResource[] = [];
  /** How far the run got (for a failure's status). */
  readonly progress: Progress = { syncAttempted: false };
  /** The App to write the outcome onto: `read`, or the answer of the Running mark once it landed. */
  app: AppResource;
  /** The Running mark of a picked-up operation, while it is on its way (markRunning). */
  running: Promise<AppResource> | undefined;
  /** destination: the cluster the App deploys to, and its driver (source). */
  target: ObjectClient | undefined;
  driver!: SourceDriver;
  /** resolve: the revision a rollback pins instead of the head (held, or standing until the next resync). */
  pinned: string | undefined;
  /** resolve: the revisions. */
  source!: ResolvedSource;
  /** render: the prepared objects (hooks apart: `plan`), the hash of the whole rendered set, the sync's plan. */
  objects!: AnyObject[];
  plan!: SyncPlan;
  hash!: string;
  /** inventory: what the App owns, and the live state of its destination. */
  inventory!: LoadedInventory;
  live!: DestinationCache;
  /** plan: whether to apply, and the operation's record, when the run has one to write. */
  doSync: boolean;
  opOutcome: OpOutcome | undefined;
  /** plan: the drift this run re-applies (selfHeal), or why selfHeal is paused instead. */
  heal: ObjectDrift[] | undefined;
  healPaused: string | undefined;
  /** plan: the message of a held sync dropped at its approval expiry (an ApprovalExpired Event). */
  approvalExpired: string | undefined;
  /** apply, health: what the status write records. */
  outcome!: Outcome;
  health!: HealthResult;
  /** autoRollback: the automatic rollback this run wrote, if any; and how soon to look again (a Degraded App's delay). */
  autoRollback: AutoRollbackRecord | undefined;
  requeueInMs: number | undefined;

  constructor(read: AppResource, key: AppKey, intent: Intent) {
    this.read = read;
    this.app = read;
    this.key = key;
    this.#intent = intent;
    this.doSync = intent.kind === 'sync';
  }

  get intent(): Intent {
    return this.#intent;
  }

  /** Replaces the intent before anything ran (the dependencies stage holding a sync), and whether it syncs. */
  set intent(intent: Intent) {
    this.#intent = intent;
    this.doSync = intent.kind === 'sync';
  }

  /** The operation the run acts on, if it has one. */
  get operation(): Operation | undefined {
    return this.intent.kind === 'observe' ? undefined : this.intent.operation;
  }

  /** The destination (set by the destination stage, which every later stage follows). */
  get destination(): ObjectClient {
    if (!this.target) throw new Error('reconcile: no destination yet (the destination stage runs first)');
    return this.target;
  }

  /** True when the run executes its operation (a sync or a restart), rather than holding or rejecting it. */
  get runsOperation(): boolean {
    return this.intent.kind === 'sync' || this.intent.kind === 'restart';
  }
}
