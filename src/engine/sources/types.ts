/**
 * A source driver turns an App's `spec.source` into what the reconciler applies: `resolve` finds the newest
 * upstream revision and the revision this reconcile targets; `render` produces the objects at a revision. One
 * driver per deployable source type (src/core/app-state.ts `DEPLOYABLE_SOURCE_TYPES`); the reconciler only ever
 * talks to a driver, never to git, a registry or a renderer directly.
 */
import type { AppResource, Operation } from '../../core/app-schema.ts';
import type { Discovery } from '../../kube/index.ts';
import type { KubeObject } from '../../render/index.ts';

/** What a reconcile targets: the upstream head, or an exact revision (Rollback, Approve). */
export interface ResolveRequest {
  target: 'head' | string;
  /** The operation being run, if any: it decides how fresh the upstream view must be. */
  operation: Operation | undefined;
}

/** The revisions of one reconcile. */
export interface ResolvedSource {
  /** The newest revision upstream (`status.observedRevision`). */
  head: string;
  /** The revision to render and, if the reconcile syncs, apply: `head` unless the request names another. */
  revision: string;
  /** What `status.observedRevision` records, when it is not `head` (image sources: the newest digest of the tag). */
  observed?: string;
  /** Where `revision` came from, remembered in `status.revisionTags` when it is applied (image sources). */
  origin?: { tag: string; image: string };
}

/**
 * What is known of one applied revision, for the history: the commit's subject, author name and author date (ISO
 * 8601) for Git; the tag a digest came from for images. Every field may be missing (not known, or not reachable now).
 */
export interface RevisionDetails {
  subject?: string;
  author?: string;
  date?: string;
  tag?: string;
}

/** What rendering needs from the destination: its API discovery (which kinds are namespaced). */
export interface RenderTarget {
  discovery: Discovery;
}

/** Resolves and renders one source type. Failures throw errors carrying their retry hint (src/core/errors.ts). */
export interface SourceDriver {
  /** Validates the source spec (InputError, a stall, when it cannot work) and resolves the revisions. */
  resolve(app: AppResource, request: ResolveRequest): Promise<ResolvedSource>;
  /** The App's objects at `revision` (a revision `resolve` returned), namespaced for the destination. */
  render(app: AppResource, revision: string, target: RenderTarget): Promise<KubeObject[]>;
  /**
   * The commit a ref names now (a branch, tag, `refs/pull/N/head` or commit id), for a preview of that ref; only
   * sources whose revisions are refs have it (Git). Throws GitRefError when there is no such ref.
   */
  resolveRef?(app: AppResource, ref: string): Promise<string>;
  /** What is known of each of `revisions` (applied revisions of the App), by revision; absent ones are unknown. */
  describe?(app: AppResource, revisions: readonly string[]): Promise<Map<string, RevisionDetails>>;
  /** The App's public address (`status.url`) once applied, if its source renders one (an image App's Ingress). */
  publicURL?(app: AppResource): string | undefined;
}
