/**
 * What an App's source renders now, for the diff: the upstream head, the objects at it exactly as the operator
 * would apply them (its source drivers, src/operator/sources, then `prepareObjects` with svc's labels) and their
 * hash, so the diff compares against the same set and the same hash as the operator's sync rule
 * (`syncStatusOf`). One render path: the server runs the operator's own driver code, with its own repository
 * cache (`<cache dir>/git-api`, never shared with an operator in the same process) and render cache. Private
 * repositories are read with the org's credentials for them (src/api/repositories); nothing is written anywhere. The history's
 * commit details come through the same drivers and repository cache (`describe`).
 */
import { join } from 'node:path';
import type { AppResource } from '../core/app-schema.ts';
import { UnprocessableError } from '../core/errors.ts';
import { GitRefError, RepoCache } from '../git/index.ts';
import type { AnyObject, Discovery } from '../kube/index.ts';
import type { OutboundPolicy } from '../net/outbound.ts';
import { RenderCache, toolPaths } from '../render/index.ts';
import type { RenderLimits } from '../render/limits.ts';
import { hashObjects, prepareObjects } from './desired.ts';
import type { ImageDriverDeps } from './sources/image.ts';
import {
  type CatalogLookup,
  driverFor,
  GitTreeReader,
  gitGuard,
  type SourceAccessLookup,
  type SourceDrivers,
  sourceDrivers,
} from './sources/index.ts';
import type { RevisionDetails } from './sources/types.ts';
import { appliedObjects } from './sync-plan.ts';

/** The rendered desired state of an App. */
export interface DesiredSet {
  /** The revision rendered: the upstream head the operator last observed (status.observedRevision), else the head. */
  revision: string;
  /** The upstream head now (may be ahead of `revision` until the operator's next reconcile). */
  head: string;
  /** The objects applied (hooks apart, ./sync-plan.ts). */
  objects: AnyObject[];
  /** The hash of the whole rendered set, hooks included (status.objectHash). */
  hash: string;
}

/** Renders Apps' sources on the server side. */
export class DesiredState {
  readonly #drivers: SourceDrivers;
  /**
   * The trees and files AppSet Git generators read (a preview of what an AppSet generates at a ref), through the
   * same repository cache and credentials as the renders.
   */
  readonly trees: GitTreeReader;

  /**
   * `image`: the server's registry client and its org registry lookup (image Apps resolve their tag as the operator
   * does); `access`: the org repositories' credentials (private Git and chart repositories); `outbound`: where
   * sources may be fetched from.
   */
  constructor(options: {
    cacheDir: string;
    toolsDir: string;
    limits?: RenderLimits;
    image: ImageDriverDeps;
    outbound: OutboundPolicy;
    access?: SourceAccessLookup;
    /** The org catalogs' templates (Catalog Apps). */
    catalog?: CatalogLookup;
  }) {
    const tools = toolPaths(options.toolsDir);
    const limits = options.limits ? { limits: options.limits } : {};
    const access = options.access ? { access: options.access } : {};
    // A diff shows the source as it is: a fetch or listing older than 5 s is repeated.
    const maxFetchAgeMs = 5_000;
    const repos = new RepoCache({ dir: join(options.cacheDir, 'git-api'), guard: gitGuard(options.outbound) });
    this.trees = new GitTreeReader({ repos, maxFetchAgeMs, ...access });
    this.#drivers = sourceDrivers({
      image: options.image,
      git: {
        repos,
        renders: new RenderCache(64),
        tools,
        ...limits,
        ...access,
        maxFetchAgeMs,
      },
      helmChart: { client: options.image.client, policy: options.outbound, tools, ...limits, ...access, maxFetchAgeMs },
      ...(options.catalog ? { catalog: { lookup: options.catalog, ttlMs: maxFetchAgeMs } } : {}),
    });
  }

  /**
   * The App's objects at the head the operator last observed (so the diff compares exactly what status.syncStatus
   * was computed from), or at the upstream head before the operator has looked. Throws the drivers' typed errors
   * (bad spec, git or render failure). With `ref` (a branch, tag, `refs/pull/N/head` or commit id of the App's
   * repository), the objects at the commit that ref names now instead: a preview of a change before it is merged;
   * a ref that does not exist, or a source that has no refs, is an UnprocessableError. Nothing is written.
   */
  async render(app: AppResource, discovery: Discovery, ref?: string): Promise<DesiredSet> {
    const driver = driverFor(this.#drivers, app);
    const target = ref === undefined ? app.status?.observedRevision || 'head' : await this.#refTarget(app, ref);
    const { head, revision } = await driver.resolve(app, { target, operation: undefined });
    const rendered = await driver.render(app, revision, { discovery });
    const prepared = prepareObjects(rendered, { namespace: app.metadata.namespace ?? '', name: app.metadata.name });
    // As the operator: hooks are not part of what is compared, the hash covers them (src/operator/reconciler.ts).
    return { revision, head, objects: appliedObjects(prepared), hash: hashObjects(prepared) };
  }

  /** The commit `ref` names in the App's source, as a target `resolve` takes. */
  async #refTarget(app: AppResource, ref: string): Promise<string> {
    const driver = driverFor(this.#drivers, app);
    if (!driver.resolveRef) {
      throw new UnprocessableError(`revision: source.type ${app.spec.source.type} has no refs to preview (Git only)`);
    }
    try {
      return await driver.resolveRef(app, ref);
    } catch (err) {
      // The caller named a ref the repository does not have: their input, not the source, is wrong.
      if (err instanceof GitRefError) throw new UnprocessableError(`revision: ${err.message}`);
      throw err;
    }
  }

  /**
   * What the App's source driver knows of each of `revisions` (commit subject, author and date for Git, the tag for
   * images), by revision. Throws the driver's typed errors (a bad spec, a failed fetch).
   */
  async describe(app: AppResource, revisions: readonly string[]): Promise<Map<string, RevisionDetails>> {
    const driver = driverFor(this.#drivers, app);
    return (await driver.describe?.(app, revisions)) ?? new Map();
  }
}
