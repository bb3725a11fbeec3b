/**
 * The operation use-cases of the API (contract §4.2 rules 5–11): sync, restart, deploy, rollback, approve, promote
 * and scale. Each authorizes (canI) → writes `spec.operation` through the App state module (one pending operation
 * per App: 409 while another is requested, running or held; Approve only while a sync is held for approval) →
 * audits (contract §6.4). Every answer carries the new operation's id.
 */
import type { AppResource } from '../../core/app-schema.ts';
import { heldRevision, inHistory } from '../../core/app-state.ts';
import { ConflictError, InputError, NotFoundError, UpstreamError } from '../../core/errors.ts';
import { isDigest, isReference } from '../../core/image-ref.ts';
import type { Actor } from '../actor.ts';
import { requirePermission } from '../context.ts';
import type { ApiServices } from '../services.ts';
import { AppAccess } from './access.ts';
import { type AppRef, scopeOfApp } from './scope.ts';

/** The answer of an operation use-case (routes present it as is). */
export interface OperationAnswer {
  message: string;
  operation_id: string;
  name?: string;
  tag?: string;
  revision?: string;
  replicas?: number;
  from?: string;
  to?: string;
  digest?: string;
}

/** The operation use-cases. */
export class AppOperations {
  readonly #access: AppAccess;
  readonly #services: ApiServices;

  constructor(services: ApiServices) {
    this.#services = services;
    this.#access = new AppAccess(services);
  }

  /** Sync (`deployment:sync`): asserts desired state at branch head; audited `app.sync`. */
  sync(actor: Actor, ref: AppRef): Promise<OperationAnswer> {
    return this.#simple(actor, ref, 'Sync', 'app.sync');
  }

  /** Restart (`deployment:sync`): bumps every managed workload's template; audited `app.restart`. */
  restart(actor: Actor, ref: AppRef): Promise<OperationAnswer> {
    return this.#simple(actor, ref, 'Restart', 'app.restart');
  }

  async #simple(actor: Actor, ref: AppRef, kind: 'Sync' | 'Restart', action: string): Promise<OperationAnswer> {
    const app = await this.#access.load(actor, ref, 'deployment:sync');
    const id = await this.#access.requestOperation(actor, app, { kind });
    await this.#access.audit(actor, action, app, { operation_id: id });
    return { message: `${kind} requested`, name: app.metadata.name, operation_id: id };
  }

  /**
   * Deploy (`deployment:sync`): re-resolves the source live. A `tag` (or digest) is for image-source Apps (it also
   * sets `spec.source.image.tag`; 400 on others); audited `app.deploy`.
   */
  async deploy(actor: Actor, ref: AppRef, tag: string | undefined): Promise<OperationAnswer> {
    const app = await this.#access.load(actor, ref, 'deployment:sync');
    const image = app.spec.source.type === 'Image' ? app.spec.source.image : undefined;
    if (tag !== undefined && !image) throw new InputError('deploy with a tag applies to image-source apps only');
    if (tag !== undefined && !isReference(tag)) throw new InputError('tag must be a tag (e.g. 1.4.2) or a digest');
    const specPatch = tag !== undefined ? { source: { image: { tag } } } : undefined;
    const id = await this.#access.requestOperation(actor, app, { kind: 'Deploy', ...(specPatch ? { specPatch } : {}) });
    const effectiveTag = tag ?? image?.tag ?? '';
    await this.#access.audit(actor, 'app.deploy', app, { operation_id: id, tag: effectiveTag });
    return { message: 'Deploy requested', name: app.metadata.name, tag: effectiveTag, operation_id: id };
  }

  /**
   * Rollback (`deployment:sync`) to a revision from the App's history (`status.revision` or
   * `status.previousRevisions`; 400 otherwise). For image Apps the tag that digest came from is written back to
   * `spec.source.image.tag`, so resyncs hold the rolled-back image (contract §3 rule 3); audited `app.rollback`. With
   * `pauseAutomated` (a rollback remediation of an automated App) the same patch turns `syncPolicy.automated` off, so
   * automated sync does not apply the branch head again at once; changing the sync policy needs `deployment:manage`
   * as well.
   */
  async rollback(
    actor: Actor,
    ref: AppRef,
    revision: string,
    options: { pauseAutomated?: boolean } = {},
  ): Promise<OperationAnswer> {
    const app = await this.#access.load(actor, ref, 'deployment:sync');
    const pause = options.pauseAutomated === true && app.spec.syncPolicy?.automated === true;
    if (pause) requirePermission(actor, 'deployment:manage', 'deployment', scopeOfApp(app));
    if (!inHistory(app, revision)) throw new InputError(`revision ${revision} is not in the app's history`);
    const tag = app.spec.source.type === 'Image' ? tagOf(app, revision) : undefined;
    const specPatch = {
      ...(tag !== undefined ? { source: { image: { tag } } } : {}),
      ...(pause ? { syncPolicy: { automated: false } } : {}),
    };
    const id = await this.#access.requestOperation(actor, app, {
      kind: 'Rollback',
      revision,
      ...(Object.keys(specPatch).length > 0 ? { specPatch } : {}),
    });
    await this.#access.audit(actor, 'app.rollback', app, {
      operation_id: id,
      revision,
      ...(tag ? { tag } : {}),
      ...(pause ? { automated_paused: true } : {}),
    });
    return { message: 'Rollback requested', name: app.metadata.name, revision, operation_id: id };
  }

  /**
   * Approve (`deployment:sync`): releases a sync held for approval, carrying the staged revision; 409 when no sync
   * is held for approval; audited `app.approve`.
   */
  async approve(actor: Actor, ref: AppRef): Promise<OperationAnswer> {
    const app = await this.#access.load(actor, ref, 'deployment:sync');
    const id = await this.#access.requestOperation(actor, app, { kind: 'Approve' });
    const revision = heldRevision(app) ?? '';
    await this.#access.audit(actor, 'app.approve', app, { operation_id: id, revision });
    return { message: 'Approve requested', name: app.metadata.name, revision, operation_id: id };
  }

  /**
   * Promote (`deployment:read` on this App, `deployment:sync` on app `to`): copies this image App's applied digest
   * onto `to` as a Deploy pinned to that digest, with the tag it came from written to `to`'s spec. 409 unless both
   * are image Apps and this one has an applied digest ("scope mismatch"); 502 when `to`'s registry lacks the digest
   * (or cannot be asked); audited `app.promote` on the target.
   */
  async promote(actor: Actor, ref: AppRef, to: string): Promise<OperationAnswer> {
    const from = await this.#access.load(actor, ref, 'deployment:read');
    const target = await this.#access.find(actor, to);
    if (!target) throw new NotFoundError(`target app ${to} not found`);
    requirePermission(actor, 'deployment:sync', 'deployment', scopeOfApp(target));
    const image = promotableImage(from, target);
    const digest = from.status?.revision ?? '';
    if (!isDigest(digest)) {
      throw new ConflictError(`app ${from.metadata.name} has no applied image digest to promote`);
    }
    const location = await this.#services.images.locate(actor.org.id, image);
    if (!(await this.#services.images.client.has(location.endpoint, location.path, digest))) {
      throw new UpstreamError(`digest ${digest} is not present in ${location.name}`);
    }
    const tag = tagOf(from, digest) ?? from.spec.source.image?.tag ?? image.tag;
    const id = await this.#access.requestOperation(actor, target, {
      kind: 'Deploy',
      revision: digest,
      specPatch: { source: { image: { tag } } },
    });
    await this.#access.audit(actor, 'app.promote', target, {
      operation_id: id,
      from: from.metadata.name,
      digest,
      tag,
    });
    return {
      message: 'Promote requested',
      from: from.metadata.name,
      to: target.metadata.name,
      digest,
      tag,
      operation_id: id,
    };
  }

  /**
   * Scale (`deployment:manage`): sets `spec.source.image.workload.replicas` with a Sync. 400 on non-image Apps,
   * 409 while autoscaling is enabled; audited `app.scale`.
   */
  async scale(actor: Actor, ref: AppRef, replicas: number): Promise<OperationAnswer> {
    const app = await this.#access.load(actor, ref, 'deployment:manage');
    const image = app.spec.source.type === 'Image' ? app.spec.source.image : undefined;
    if (!image) throw new InputError('scale applies to image-source apps only');
    if (image.autoscaling?.enabled) {
      throw new ConflictError(`app ${app.metadata.name} has autoscaling enabled; scale is refused`);
    }
    const id = await this.#access.requestOperation(actor, app, {
      kind: 'Sync',
      specPatch: { source: { image: { workload: { replicas } } } },
    });
    await this.#access.audit(actor, 'app.scale', app, { operation_id: id, replicas });
    return { message: 'Scale requested', name: app.metadata.name, replicas, operation_id: id };
  }
}

export { inHistory } from '../../core/app-state.ts';

/** The tag an applied image digest came from (`status.revisionTags`), if recorded. */
export function tagOf(app: AppResource, revision: string): string | undefined {
  return app.status?.revisionTags?.find((e) => e.revision === revision)?.tag;
}

/** The target's image source when promote may copy `from` onto it; ConflictError (scope mismatch) otherwise. */
export function promotableImage(from: AppResource, target: AppResource) {
  const image = target.spec.source.type === 'Image' ? target.spec.source.image : undefined;
  if (from.spec.source.type !== 'Image' || !image) {
    throw new ConflictError('promote needs image-source apps on both sides (scope mismatch)');
  }
  if (from.metadata.name === target.metadata.name) throw new ConflictError('cannot promote an app onto itself');
  return image;
}
