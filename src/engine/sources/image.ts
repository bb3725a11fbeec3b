/**
 * The image source driver (contract §2.3, §3 rules 1–3). Revisions are digests.
 *
 * Which digest a reconcile targets:
 * - an exact revision (Rollback, Approve) or a Deploy carrying one (promote's byte-equal pin, the tag poller's
 *   moved digest): that digest, without asking the registry;
 * - a Deploy without one: the tag resolved live;
 * - anything else (Sync, Restart, an observing reconcile): the applied digest while the spec's image and tag are
 *   the ones it came from (`status.revisionTags`), so a Pinned tag stays on its recorded digest through syncs;
 *   else (the first sync, or the image or tag was edited) the tag resolved live.
 * - the first sync of a clone of a Pinned App (`cd.svc.space/cloned-revision`, written by the API's clone): the
 *   digest the original ran, while the clone's image and tag are still the ones it came from, so the clone runs
 *   what the original runs (a rolled-back original included) rather than whatever the tag points at now.
 * `head` is that digest (so an App on it is Synced); `status.observedRevision` records the newest digest seen for
 * the tag, which the server's tag poller compares against to redeploy Follow Apps.
 *
 * `env[].store` values come from the server (which holds the store credentials) once per sync (contract §4.4 rule
 * 7): a reconcile running an operation, or seeing a spec generation it has not resolved yet, asks; the others
 * render with the values kept from then, so a rotated secret reaches the Pods with the next Sync or Deploy and an
 * observing reconcile neither calls the store nor reports drift for it.
 */
import type { AppResource, ImageSource, RevisionTag } from '../../core/app-schema.ts';
import { InputError, UnavailableError } from '../../core/errors.ts';
import { imageSourceProblems, isDigest } from '../../core/image-ref.ts';
import type { ResolvedEnv, ServerChannel } from '../../internal/channel.ts';
import type { ImageLocation, RegistryClient, RegistryEndpoint } from '../../registry/index.ts';
import { locateImage } from '../../registry/index.ts';
import { envStoreRefs } from '../../render/env-store.ts';
import { imageURL, type KubeObject, renderImageWorkload } from '../../render/index.ts';
import type { RenderTarget, ResolvedSource, ResolveRequest, RevisionDetails, SourceDriver } from './types.ts';

/** What the image driver shares across Apps. */
export interface ImageDriverDeps {
  client: RegistryClient;
  /** The registry an App's `registryRef` names in its org (the org is the App resource's namespace). */
  registry: (orgNamespace: string, name: string) => Promise<RegistryEndpoint>;
  /** Where `env[].store` values come from (the internal channel); without it such Apps wait, saying why. */
  values?: Pick<ServerChannel, 'envValues'>;
}

/** How many Apps' resolved store values are kept (the oldest is dropped beyond: it is fetched again). */
const STORE_VALUES_KEPT = 10_000;

/** The image block of an App; InputError (a stall: the spec cannot work) when it is missing or invalid. */
export function imageSourceOf(app: AppResource): ImageSource {
  const image = app.spec.source.image;
  if (!image) throw new InputError('spec.source.image is required when source.type is Image');
  const problems = imageSourceProblems(image, 'spec.source.image');
  if (problems.length > 0) throw new InputError(problems.join('; '));
  return image;
}

/** The applied digest when it came from the spec's current image and tag (see the module comment). */
export function keptDigest(app: AppResource, origin: { tag: string; image: string }): string | undefined {
  const revision = app.status?.revision;
  if (!revision) return undefined;
  const entry = app.status?.revisionTags?.find((e) => e.revision === revision);
  return entry?.tag === origin.tag && entry.image === origin.image ? revision : undefined;
}

/** On a clone of a Pinned image App: the digest the original ran and where it came from (a RevisionTag as JSON). */
export const CLONED_REVISION_ANNOTATION = 'cd.svc.space/cloned-revision';

/**
 * The annotations a clone of `from` carries so that its first sync deploys the digest `from` runs: for a Pinned
 * image App whose applied digest came from its current tag, else none (a Follow App, or a Git App, resolves anew).
 */
export function cloneAnnotations(from: AppResource): Record<string, string> {
  const image = from.spec.source.image;
  const revision = from.status?.revision;
  if (from.spec.source.type !== 'Image' || !image || image.tagPolicy === 'Follow' || !revision) return {};
  const entry = from.status?.revisionTags?.find((e) => e.revision === revision);
  if (entry?.tag !== image.tag) return {};
  const pinned: RevisionTag = { revision, tag: entry.tag, image: entry.image };
  return { [CLONED_REVISION_ANNOTATION]: JSON.stringify(pinned) };
}

/**
 * The digest a clone's first sync deploys (see the module comment): the original's, from the clone annotation,
 * while nothing was applied yet, the App is Pinned and its image and tag are still the ones the digest came from.
 */
export function clonedDigest(app: AppResource, origin: { tag: string; image: string }): string | undefined {
  const raw = app.metadata.annotations?.[CLONED_REVISION_ANNOTATION];
  if (!raw || app.status?.revision || app.spec.source.image?.tagPolicy === 'Follow') return undefined;
  let pinned: Partial<RevisionTag>;
  try {
    pinned = JSON.parse(raw) as Partial<RevisionTag>;
  } catch {
    return undefined; // an annotation edited by hand into nonsense: resolve the tag as for any first sync
  }
  const { revision, tag, image } = pinned;
  if (typeof revision !== 'string' || !isDigest(revision)) return undefined;
  return tag === origin.tag && image === origin.image ? revision : undefined;
}

/** Resolves and renders `source.type: Image`. */
export class ImageDriver implements SourceDriver {
  readonly #deps: ImageDriverDeps;
  /** Resolved `env[].store` values by App uid, with the spec generation they were resolved for. */
  readonly #storeValues = new Map<string, { generation: number; values: ResolvedEnv[] }>();

  constructor(deps: ImageDriverDeps) {
    this.#deps = deps;
  }

  async resolve(app: AppResource, request: ResolveRequest): Promise<ResolvedSource> {
    const image = imageSourceOf(app);
    await this.#resolveStoreValues(app, image, request.operation !== undefined);
    const location = await this.#locate(app, image);
    const origin = { tag: image.tag, image: location.name };
    const op = request.operation;
    const deployPin = op?.kind === 'Deploy' && op.revision ? op.revision : undefined;
    const exact = request.target !== 'head' ? request.target : deployPin;
    if (exact !== undefined) {
      if (!isDigest(exact)) throw new InputError(`revision "${exact}" is not an image digest`);
      // A pinned Deploy is the newest digest of its tag (the poller's) or is meant to be (promote's).
      const observed = deployPin === exact ? exact : (app.status?.observedRevision ?? exact);
      return { head: exact, revision: exact, observed, origin };
    }
    if (op?.kind !== 'Deploy') {
      const kept = keptDigest(app, origin);
      if (kept) return { head: kept, revision: kept, observed: app.status?.observedRevision ?? kept, origin };
      const cloned = clonedDigest(app, origin);
      if (cloned) return { head: cloned, revision: cloned, observed: cloned, origin };
    }
    const digest = await this.#deps.client.resolve(location.endpoint, location.path, image.tag);
    return { head: digest, revision: digest, observed: digest, origin };
  }

  async render(app: AppResource, revision: string, _target: RenderTarget): Promise<KubeObject[]> {
    const image = imageSourceOf(app);
    const location = await this.#locate(app, image);
    return renderImageWorkload({
      appName: app.metadata.name,
      namespace: app.spec.destination.namespace,
      image,
      reference: `${location.name}@${revision}`,
      storeValues: this.#storeValues.get(app.metadata.uid ?? '')?.values ?? [],
    });
  }

  /** The tag each digest came from, where the App recorded it (`status.revisionTags`); the registry is not asked. */
  async describe(app: AppResource, revisions: readonly string[]): Promise<Map<string, RevisionDetails>> {
    const details = new Map<string, RevisionDetails>();
    for (const e of app.status?.revisionTags ?? [])
      if (revisions.includes(e.revision)) details.set(e.revision, { tag: e.tag });
    return details;
  }

  publicURL(app: AppResource): string | undefined {
    const image = app.spec.source.image;
    return image ? imageURL(image) : undefined;
  }

  /** Asks the server for the App's `env[].store` values when a sync runs or the spec changed since they were asked. */
  async #resolveStoreValues(app: AppResource, image: ImageSource, syncing: boolean): Promise<void> {
    const uid = app.metadata.uid ?? '';
    const refs = envStoreRefs(image.workload?.env);
    if (refs.length === 0) {
      this.#storeValues.delete(uid);
      return;
    }
    const generation = app.metadata.generation ?? 0;
    if (!syncing && this.#storeValues.get(uid)?.generation === generation) return;
    if (!this.#deps.values) {
      throw new UnavailableError(
        'spec.source.image.workload.env[].store needs the channel to the server, which holds the store credentials (svc start, or SVC_SERVER_URL with an operator credential)',
        { retry: 'wait' },
      );
    }
    const values = await this.#deps.values.envValues({
      appNamespace: app.metadata.namespace ?? '',
      appName: app.metadata.name,
      refs,
    });
    this.#storeValues.delete(uid);
    this.#storeValues.set(uid, { generation, values });
    if (this.#storeValues.size > STORE_VALUES_KEPT) {
      const oldest = this.#storeValues.keys().next().value;
      if (oldest !== undefined) this.#storeValues.delete(oldest);
    }
  }

  async #locate(app: AppResource, image: ImageSource): Promise<ImageLocation> {
    const ref = image.registryRef;
    const registry = ref === undefined ? undefined : await this.#deps.registry(app.metadata.namespace ?? '', ref);
    return locateImage(image, registry);
  }
}
