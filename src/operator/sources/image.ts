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
 * `head` is that digest (so an App on it is Synced); `status.observedRevision` records the newest digest seen for
 * the tag, which the server's tag poller compares against to redeploy Follow Apps.
 */
import type { AppResource, ImageSource } from '../../core/app-schema.ts';
import { InputError } from '../../core/errors.ts';
import { imageSourceProblems, isDigest } from '../../core/image-ref.ts';
import type { ImageLocation, RegistryClient, RegistryEndpoint } from '../../registry/index.ts';
import { locateImage } from '../../registry/index.ts';
import { imageURL, type KubeObject, renderImageWorkload } from '../../render/index.ts';
import type { RenderTarget, ResolvedSource, ResolveRequest, SourceDriver } from './types.ts';

/** What the image driver shares across Apps. */
export interface ImageDriverDeps {
  client: RegistryClient;
  /** The registry an App's `registryRef` names in its org (the org is the App resource's namespace). */
  registry: (orgNamespace: string, name: string) => Promise<RegistryEndpoint>;
}

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

/** Resolves and renders `source.type: Image`. */
export class ImageDriver implements SourceDriver {
  readonly #d: ImageDriverDeps;

  constructor(deps: ImageDriverDeps) {
    this.#d = deps;
  }

  async resolve(app: AppResource, request: ResolveRequest): Promise<ResolvedSource> {
    const image = imageSourceOf(app);
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
    }
    const digest = await this.#d.client.resolve(location.endpoint, location.path, image.tag);
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
    });
  }

  publicURL(app: AppResource): string | undefined {
    const image = app.spec.source.image;
    return image ? imageURL(image) : undefined;
  }

  async #locate(app: AppResource, image: ImageSource): Promise<ImageLocation> {
    const ref = image.registryRef;
    const registry = ref === undefined ? undefined : await this.#d.registry(app.metadata.namespace ?? '', ref);
    return locateImage(image, registry);
  }
}
