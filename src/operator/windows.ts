/**
 * The operator's view of delivery windows (docs/operator.md "Delivery windows"): an App's own
 * (spec.syncPolicy.windows), its destination cluster's and its org's, the last two from the server over the internal
 * channel, kept per org for `ttlMs` (an edit reaches the operator within it; a thousand Apps of one org cost one
 * call per period). While the server cannot answer, the last answer is kept; an org never answered for has none.
 */
import type { AppResource } from '../core/app-schema.ts';
import { TtlAnswers } from '../core/ttl-answers.ts';
import { type SourcedWindow, sourcedWindows } from '../core/windows.ts';
import type { OrgDeliveryWindows, ServerChannel } from '../internal/channel.ts';

/** How long an org's answer is reused (the same period as org health checks). */
export const WINDOWS_TTL_MS = 30_000;

const NONE: OrgDeliveryWindows = { org: [], clusters: {} };

/** Delivery windows by org namespace, from the server, cached briefly. */
export class WindowLookup {
  readonly #channel: Pick<ServerChannel, 'deliveryWindows'> | undefined;
  readonly #answers: TtlAnswers<OrgDeliveryWindows>;

  constructor(channel: Pick<ServerChannel, 'deliveryWindows'> | undefined, ttlMs = WINDOWS_TTL_MS) {
    this.#channel = channel;
    this.#answers = new TtlAnswers<OrgDeliveryWindows>(ttlMs, NONE);
  }

  /** Every window that applies to `app`, marked with where it comes from; never rejects. */
  async of(app: AppResource): Promise<SourcedWindow[]> {
    const own = app.spec.syncPolicy?.windows ?? [];
    const shared = await this.#org(app.metadata.namespace ?? '');
    const cluster = app.spec.destination.cluster ?? '';
    return sourcedWindows({ app: own, cluster: shared.clusters[cluster] ?? [], org: shared.org });
  }

  #org(orgNamespace: string): Promise<OrgDeliveryWindows> {
    const channel = this.#channel;
    if (!channel || orgNamespace === '') return Promise.resolve(NONE);
    return this.#answers.get(orgNamespace, () => channel.deliveryWindows(orgNamespace));
  }
}
