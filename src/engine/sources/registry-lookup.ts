/**
 * The operator's view of the org registries Apps name (`spec.source.image.registryRef`). The operator holds no
 * database and no credentials: it asks the server over the internal channel (src/internal) and keeps each answer
 * for a short time, so a thousand Apps on one registry cost one call per period, and a changed password reaches
 * the operator within that period. Failures are not kept.
 */
import { UnavailableError } from '../../core/errors.ts';
import type { ServerChannel } from '../../internal/channel.ts';
import type { RegistryEndpoint } from '../../registry/index.ts';

/** How long an answer is reused. */
export const REGISTRY_LOOKUP_TTL_MS = 30_000;

/** Registries by org namespace and name, from the server, cached briefly. */
export class RegistryLookup {
  readonly #channel: Pick<ServerChannel, 'registry'> | undefined;
  readonly #ttlMs: number;
  readonly #cache = new Map<string, { at: number; answer: Promise<RegistryEndpoint> }>();

  /** Without a channel every lookup fails with UnavailableError naming what to configure. */
  constructor(channel: Pick<ServerChannel, 'registry'> | undefined, ttlMs = REGISTRY_LOOKUP_TTL_MS) {
    this.#channel = channel;
    this.#ttlMs = ttlMs;
  }

  /** The registry `name` of the org owning `orgNamespace`. */
  get(orgNamespace: string, name: string): Promise<RegistryEndpoint> {
    const channel = this.#channel;
    if (!channel) {
      return Promise.reject(
        new UnavailableError(
          `registry "${name}": the operator has no channel to the server to fetch registry credentials (set SVC_SERVER_URL and SVC_OPERATOR_TOKEN)`,
          { retry: 'wait' },
        ),
      );
    }
    const key = `${orgNamespace}/${name}`;
    const now = Date.now();
    const held = this.#cache.get(key);
    if (held && now - held.at < this.#ttlMs) return held.answer;
    const answer = channel.registry(orgNamespace, name);
    this.#cache.set(key, { at: now, answer });
    answer.catch(() => {
      if (this.#cache.get(key)?.answer === answer) this.#cache.delete(key);
    });
    for (const [k, v] of this.#cache) if (now - v.at >= this.#ttlMs) this.#cache.delete(k);
    return answer;
  }
}
