/**
 * selfHeal's brake: how many times each App re-applied drift lately. When another writer keeps changing the fields
 * svc applies (an HPA without an ignore rule, a controller, a person's script), reverting on every watch event would
 * fight it forever; after `limit` reverts within `windowMs` the App stops reverting (the SelfHealPaused condition
 * names the other writer, a Warning event and a notification say so) until the oldest revert leaves the window.
 * In memory: a new leader starts counting afresh, which at worst allows one more round of `limit` reverts.
 */
import type { AppKey } from '../engine/labels.ts';

/** The brake's bounds. */
export interface SelfHealLimits {
  /** Reverts allowed per App within `windowMs` (ReconcilerTuning: 5 per 10 minutes). */
  limit: number;
  windowMs: number;
}

/** Per-App revert times within the window. */
export class SelfHealBrake {
  readonly #limits: SelfHealLimits;
  readonly #reverts = new Map<string, number[]>();

  constructor(limits: SelfHealLimits) {
    this.#limits = limits;
  }

  /** True when the App may revert once more now. */
  allows(app: AppKey, now: number = Date.now()): boolean {
    return this.#recent(app, now).length < this.#limits.limit;
  }

  /** Records one revert of the App. */
  record(app: AppKey, now: number = Date.now()): void {
    const key = `${app.namespace}/${app.name}`;
    this.#reverts.set(key, [...this.#recent(app, now), now]);
  }

  /** Milliseconds until the App may revert again (0 when it may now). */
  retryInMs(app: AppKey, now: number = Date.now()): number {
    const recent = this.#recent(app, now);
    if (recent.length < this.#limits.limit) return 0;
    return (recent[recent.length - this.#limits.limit] ?? now) + this.#limits.windowMs - now;
  }

  /** Forgets a deleted App. */
  forget(app: AppKey): void {
    this.#reverts.delete(`${app.namespace}/${app.name}`);
  }

  #recent(app: AppKey, now: number): number[] {
    const key = `${app.namespace}/${app.name}`;
    const recent = (this.#reverts.get(key) ?? []).filter((t) => now - t < this.#limits.windowMs);
    if (recent.length === 0) this.#reverts.delete(key);
    else this.#reverts.set(key, recent);
    return recent;
  }
}
