/**
 * Prometheus metrics of the operator (own registry, so several operators in one process never collide):
 * reconciles by result, reconcile errors, reconcile duration and its steps, an info gauge per App with its sync and health
 * status, sync operations by kind and phase, leadership, the shard's share of Apps, and the App writes remembered
 * until the watch delivers them.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { HealthStatus, SyncStatus } from '../core/app-schema.ts';
import type { AppKey } from '../engine/labels.ts';

/** The operator's metrics. */
export class OperatorMetrics {
  readonly registry = new Registry();
  readonly #reconciles = new Counter({
    name: 'svc_reconcile_total',
    help: 'App reconciles by result',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly #errors = new Counter({
    name: 'svc_reconcile_errors_total',
    help: 'App reconciles that ended in an error',
    registers: [this.registry],
  });
  readonly #duration = new Histogram({
    name: 'svc_reconcile_duration_seconds',
    help: 'Duration of one App reconcile by result',
    labelNames: ['result'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly #stages = new Histogram({
    name: 'svc_reconcile_stage_duration_seconds',
    help: 'Time one reconcile spent in each step (load, mark_running, destination, source, render, inventory, namespace, apply, prune, health, status)',
    labelNames: ['stage'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });
  readonly #info = new Gauge({
    name: 'svc_app_info',
    help: 'One series per App with its current sync and health status (value 1)',
    labelNames: ['namespace', 'name', 'sync_status', 'health_status'],
    registers: [this.registry],
  });
  readonly #operations = new Counter({
    name: 'svc_sync_operations_total',
    help: 'Operations processed, by kind and resulting phase',
    labelNames: ['kind', 'phase'],
    registers: [this.registry],
  });
  readonly #selfHeal = new Counter({
    name: 'svc_selfheal_total',
    help: 'selfHeal decisions on drifted Apps: reverted (re-applied) or paused (the brake stopped it)',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly #leader = new Gauge({
    name: 'svc_operator_leader',
    help: '1 while this operator process holds the leader Lease',
    registers: [this.registry],
  });
  readonly #shardApps = new Gauge({
    name: 'svc_operator_shard_apps',
    help: 'Apps this operator replica owns and reconciles (sharding; every App without it)',
    registers: [this.registry],
  });
  readonly #shardMembers = new Gauge({
    name: 'svc_operator_shard_members',
    help: 'Live operator replicas in the shard membership this replica applies (sharding only)',
    registers: [this.registry],
  });
  /** Where the remembered-writes gauge reads its value (set once the reconciler exists). */
  #rememberedWrites: () => number = () => 0;
  readonly #remembered: Gauge = new Gauge({
    name: 'svc_operator_remembered_writes',
    help: 'App writes this process remembers until its watch delivers them (read-your-writes; dropped on delivery)',
    registers: [this.registry],
    collect: (): void => this.#remembered.set(this.#rememberedWrites()),
  });
  readonly #last = new Map<string, { sync: string; health: string }>();

  constructor() {
    // Process metrics (CPU, memory, event loop lag) on the same endpoint, as every Prometheus target has.
    collectDefaultMetrics({ register: this.registry });
  }

  /** Records one reconcile. */
  reconcile(result: string, seconds: number): void {
    this.#reconciles.inc({ result });
    if (result === 'error') this.#errors.inc();
    this.#duration.observe({ result }, seconds);
  }

  /** Records the time one reconcile spent in one step (where reconcile time goes: bench/README.md). */
  stage(stage: string, seconds: number): void {
    this.#stages.observe({ stage }, seconds);
  }

  /** Sets the App's info series (removing its previous one). */
  observeApp(app: AppKey, sync: SyncStatus, health: HealthStatus): void {
    const id = this.#removeInfo(app);
    this.#info.set({ namespace: app.namespace, name: app.name, sync_status: sync, health_status: health }, 1);
    this.#last.set(id, { sync, health });
  }

  /** Drops the series of a deleted App. */
  forgetApp(app: AppKey): void {
    this.#last.delete(this.#removeInfo(app));
  }

  /** Removes the App's current info series, if it has one; returns the App's key in `#last`. */
  #removeInfo(app: AppKey): string {
    const id = `${app.namespace}/${app.name}`;
    const last = this.#last.get(id);
    if (last)
      this.#info.remove({
        namespace: app.namespace,
        name: app.name,
        sync_status: last.sync,
        health_status: last.health,
      });
    return id;
  }

  operation(kind: string, phase: string): void {
    this.#operations.inc({ kind, phase });
  }

  /** Counts one selfHeal decision on a drifted App. */
  selfHeal(result: 'reverted' | 'paused'): void {
    this.#selfHeal.inc({ result });
  }

  leader(isLeader: boolean): void {
    this.#leader.set(isLeader ? 1 : 0);
  }

  /** Names where the remembered App writes are counted (the reconciler's read-your-writes cache). */
  countRememberedWrites(count: () => number): void {
    this.#rememberedWrites = count;
  }

  /** Sets this replica's share: the Apps it owns and the members of the membership it applies. */
  shard(apps: number, members: number): void {
    this.#shardApps.set(apps);
    this.#shardMembers.set(members);
  }
}
