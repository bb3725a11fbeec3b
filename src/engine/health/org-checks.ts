/**
 * The operator's view of each org's custom health checks (`/api/v1/health-checks`). The operator holds no database:
 * it asks the server over the internal channel (src/internal) and keeps each answer for `ttlMs`, so a thousand
 * Apps of one org cost one call per period and an edited check reaches the operator within it. While the server
 * cannot answer, the last answer is kept (health does not flip because the server restarts) and the server is asked
 * again after the same period; an org never answered for has none. Without a channel no org has any.
 */
import type { HealthCheck } from '../../core/app-schema.ts';
import { TtlAnswers } from '../../core/ttl-answers.ts';
import type { ServerChannel } from '../../internal/channel.ts';

/** How long an answer is reused (the same period as registries). */
export const ORG_CHECKS_TTL_MS = 30_000;

/** Org health checks by org namespace, from the server, cached briefly. */
export class OrgCheckLookup {
  readonly #channel: Pick<ServerChannel, 'healthChecks'> | undefined;
  readonly #answers: TtlAnswers<HealthCheck[]>;

  constructor(channel: Pick<ServerChannel, 'healthChecks'> | undefined, ttlMs = ORG_CHECKS_TTL_MS) {
    this.#channel = channel;
    this.#answers = new TtlAnswers<HealthCheck[]>(ttlMs, []);
  }

  /** The checks of the org owning `orgNamespace`; never rejects. */
  async get(orgNamespace: string): Promise<HealthCheck[]> {
    const channel = this.#channel;
    if (!channel) return [];
    return this.#answers.get(orgNamespace, () => channel.healthChecks(orgNamespace));
  }

  /** The last answer for `orgNamespace` without asking (for the live cache's synchronous decisions). */
  known(orgNamespace: string): HealthCheck[] {
    return this.#answers.known(orgNamespace);
  }
}
