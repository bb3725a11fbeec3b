/**
 * The custom checks that apply to one App: its own (`spec.health.checks`) and its org's (`/api/v1/health-checks`),
 * by exact apiVersion and kind; the App's replace the org's for the same kind, and either replaces the built-in
 * check. Evaluated in the CEL sandbox (./cel/sandbox.ts) after the generic rules 1–2 (being deleted, generation
 * not yet observed).
 */
import type { HealthCheck } from '../../core/app-schema.ts';
import type { CelSandbox } from './cel/sandbox.ts';
import { pendingChange } from './generic.ts';
import type { Health, LiveObject } from './status.ts';

/** What health assessment needs of the custom checks. */
export interface CustomChecks {
  /** The check for objects of `apiVersion` and `kind`, if one applies. */
  checkFor(apiVersion: string, kind: string): HealthCheck | undefined;
  /** Health of `obj` by `check` (never rejects). */
  evaluate(check: HealthCheck, obj: LiveObject): Promise<Health>;
}

const kindKey = (apiVersion: string, kind: string): string => `${apiVersion}/${kind}`;

/** The checks of an App and its org, evaluated in `sandbox`. */
export class CheckSet implements CustomChecks {
  readonly #checks = new Map<string, HealthCheck>();
  readonly #sandbox: CelSandbox;

  constructor(sandbox: CelSandbox, org: readonly HealthCheck[], app: readonly HealthCheck[]) {
    this.#sandbox = sandbox;
    for (const c of [...org, ...app]) this.#checks.set(kindKey(c.apiVersion, c.kind), c);
  }

  /** True when no check applies (health is the built-in one). */
  get empty(): boolean {
    return this.#checks.size === 0;
  }

  checkFor(apiVersion: string, kind: string): HealthCheck | undefined {
    return this.#checks.get(kindKey(apiVersion, kind));
  }

  evaluate(check: HealthCheck, obj: LiveObject): Promise<Health> {
    const pending = pendingChange(obj);
    if (pending) return Promise.resolve(pending);
    return this.#sandbox.evaluate(check, obj as Record<string, unknown>);
  }
}
