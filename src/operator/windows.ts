/**
 * The operator's view of delivery windows (docs/operator.md "Delivery windows"): an App's own
 * (spec.syncPolicy.windows), its destination cluster's and its org's, the last two from the server over the internal
 * channel, kept per org for `ttlMs` (an edit reaches the operator within it; a thousand Apps of one org cost one
 * call per period). While the server cannot answer, the last answer is kept; an org never answered for has none.
 */
import type { AppResource } from '../core/app-schema.ts';
import { type SourcedWindow, sourcedWindows } from '../core/windows.ts';
import type { OrgDeliveryWindows, ServerChannel } from '../internal/channel.ts';

/** How long an org's answer is reused (the same period as org health checks). */
export const WINDOWS_TTL_MS = 30_000;

interface Held {
  at: number;
  windows: OrgDeliveryWindows;
  pending?: Promise<OrgDeliveryWindows>;
}

const NONE: OrgDeliveryWindows = { org: [], clusters: {} };

/** Delivery windows by org namespace, from the server, cached briefly. */
export class WindowLookup {
  readonly #channel: Pick<ServerChannel, 'deliveryWindows'> | undefined;
  readonly #ttlMs: number;
  readonly #held = new Map<string, Held>();

  constructor(channel: Pick<ServerChannel, 'deliveryWindows'> | undefined, ttlMs = WINDOWS_TTL_MS) {
    this.#channel = channel;
    this.#ttlMs = ttlMs;
  }

  /** Every window that applies to `app`, marked with where it comes from; never rejects. */
  async of(app: AppResource): Promise<SourcedWindow[]> {
    const own = app.spec.syncPolicy?.windows ?? [];
    const shared = await this.#org(app.metadata.namespace ?? '');
    const cluster = app.spec.destination.cluster ?? '';
    return sourcedWindows({ app: own, cluster: shared.clusters[cluster] ?? [], org: shared.org });
  }

  async #org(orgNamespace: string): Promise<OrgDeliveryWindows> {
    const channel = this.#channel;
    if (!channel || orgNamespace === '') return NONE;
    const held = this.#held.get(orgNamespace);
    if (held && Date.now() - held.at < this.#ttlMs) return held.windows;
    if (held?.pending) return held.pending;
    const entry: Held = held ?? { at: 0, windows: NONE };
    entry.pending = channel
      .deliveryWindows(orgNamespace)
      .then((windows) => {
        entry.windows = windows;
        entry.at = Date.now();
        return windows;
      })
      .catch(() => {
        // Asked again after the same period: a server that is down is not asked on every reconcile.
        entry.at = Date.now();
        return entry.windows;
      })
      .finally(() => {
        entry.pending = undefined;
      });
    this.#held.set(orgNamespace, entry);
    return entry.pending;
  }
}
