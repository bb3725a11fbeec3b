/**
 * The live state of every destination the operator deploys to: one DestinationCache per destination key (empty for
 * the management cluster, `<org namespace>/<cluster>` for a registered one). `targetFor` (src/operator/index.ts)
 * gives the client of a destination, and `of(key, client)` its cache; a new client (the cluster's record changed)
 * replaces the cache.
 */
import type { Logger } from 'pino';
import type { AppResource } from '../../core/app-schema.ts';
import type { AppKey } from '../../engine/labels.ts';
import type { ObjectClient } from '../../kube/index.ts';
import { DestinationCache } from './destination.ts';

export { DestinationCache } from './destination.ts';

/**
 * The key of an App's destination in the LiveCache: empty for the management cluster, else `<org namespace>/<cluster>`
 * (cluster names are unique per org only: two orgs' clusters of one name are different clusters).
 */
export function destinationOf(app: AppResource): string {
  const cluster = app.spec.destination.cluster ?? '';
  return cluster === '' ? '' : `${app.metadata.namespace ?? ''}/${cluster}`;
}

/** Options of a LiveCache. */
export interface LiveCacheOptions {
  /** Called with an App whose managed objects changed in a way that can alter its status (see DestinationCache). */
  onChange: (app: AppKey) => void;
  /** See DestinationCacheOptions.customChecked. */
  customChecked?: (app: AppKey, apiVersion: string, kind: string) => boolean;
  logger: Logger;
}

/** The DestinationCache of every destination, created on first use. */
export class LiveCache {
  readonly #options: LiveCacheOptions;
  readonly #destinations = new Map<string, DestinationCache>();

  constructor(options: LiveCacheOptions) {
    this.#options = options;
  }

  /**
   * The cache of destination `key`, reached through `client`. When the destination's client was replaced (new
   * credentials), the old cache is stopped and a new one started.
   */
  of(key: string, client: ObjectClient): DestinationCache {
    const existing = this.#destinations.get(key);
    if (existing?.client === client) return existing;
    if (existing) void existing.stop();
    const cache = new DestinationCache({
      name: key,
      client,
      onChange: this.#options.onChange,
      ...(this.#options.customChecked ? { customChecked: this.#options.customChecked } : {}),
      logger: this.#options.logger,
    });
    this.#destinations.set(key, cache);
    return cache;
  }

  /** Stops every destination's watches. */
  async stop(): Promise<void> {
    const all = [...this.#destinations.values()];
    this.#destinations.clear();
    await Promise.all(all.map((d) => d.stop()));
  }
}
