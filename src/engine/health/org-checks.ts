/**
 * The operator's view of each org's custom health checks (`/api/v1/health-checks`). The operator holds no database:
 * it asks the server over the internal channel (src/internal) and keeps each answer for `ttlMs`, so a thousand
 * Apps of one org cost one call per period and an edited check reaches the operator within it. While the server
 * cannot answer, the last answer is kept (health does not flip because the server restarts) and the server is asked
 * again after the same period; an org never answered for has none. Without a channel no org has any.
 */
import type { HealthCheck } from '../../core/app-schema.ts';
import type { ServerChannel } from '../../internal/channel.ts';

/** How long an answer is reused (the same period as registries). */
export const ORG_CHECKS_TTL_MS = 30_000;

interface Held {
  at: number;
  checks: HealthCheck[];
  pending?: Promise<HealthCheck[]>;
}

/** Org health checks by org namespace, from the server, cached briefly. */
export class OrgCheckLookup {
  readonly #channel: Pick<ServerChannel, 'healthChecks'> | undefined;
  readonly #ttlMs: number;
  readonly #held = new Map<string, Held>();

  constructor(channel: Pick<ServerChannel, 'healthChecks'> | undefined, ttlMs = ORG_CHECKS_TTL_MS) {
    this.#channel = channel;
    this.#ttlMs = ttlMs;
  }

  /** The checks of the org owning `orgNamespace`; never rejects. */
  async get(orgNamespace: string): Promise<HealthCheck[]> {
    const channel = this.#channel;
    if (!channel) return [];
    const held = this.#held.get(orgNamespace);
    if (held && Date.now() - held.at < this.#ttlMs) return held.checks;
    if (held?.pending) return held.pending;
    const entry: Held = held ?? { at: 0, checks: [] };
    entry.pending = channel
      .healthChecks(orgNamespace)
      .then((checks) => {
        entry.checks = checks;
        entry.at = Date.now();
        return checks;
      })
      .catch(() => {
        // Asked again after the same period: a server that is down is not asked on every reconcile.
        entry.at = Date.now();
        return entry.checks;
      })
      .finally(() => {
        entry.pending = undefined;
      });
    this.#held.set(orgNamespace, entry);
    return entry.pending;
  }

  /** The last answer for `orgNamespace` without asking (for the live cache's synchronous decisions). */
  known(orgNamespace: string): HealthCheck[] {
    return this.#held.get(orgNamespace)?.checks ?? [];
  }
}
