/**
 * Resolve and render a Git source: branch head (through the shared repository cache), the exact target
 * revision, and the render through the shared render cache; only a miss exports a private checkout (always
 * removed) and runs the renderer.
 */
import type { AppResource, GitSource, Operation } from '../../core/app-schema.ts';
import { InputError } from '../../core/errors.ts';
import { exportRevision, type FetchOptions, type RepoCache } from '../../git/index.ts';
import type { Discovery } from '../../kube/index.ts';
import {
  defaultNamespace,
  finishObjects,
  type KubeObject,
  type RenderCache,
  renderManifests,
  type ToolPaths,
} from '../../render/index.ts';

/** The Git block of an App, or an InputError when the App has another source type. */
export function gitSourceOf(app: AppResource): GitSource {
  const src = app.spec.source;
  if (src.type !== 'Git') throw new InputError(`source type ${src.type} is not supported by the Git reconciler`);
  if (!src.git?.repoURL) throw new InputError('spec.source.git.repoURL is required');
  // The same rule as the API: only remote repositories, never the operator's own disk (file://, plain paths).
  if (!/^(https?|ssh|git):\/\/[^/]|^[\w.-]+@[\w.-]+:/.test(src.git.repoURL)) {
    throw new InputError(`spec.source.git.repoURL "${src.git.repoURL}" must be an http(s), ssh or git URL`);
  }
  return src.git;
}

/** Head commit of the App's branch (default `main`). */
export function resolveHead(repos: RepoCache, git: GitSource, fresh: FetchOptions): Promise<string> {
  return repos.resolveBranch(git.repoURL, git.branch || 'main', fresh);
}

/**
 * How fresh the repository must be for a reconcile. Without an operation, a fetch younger than `maxAgeMs`.
 * An operation fetches anew, except one requested by a push (`triggeredBy: webhook:*`, stamped by the operator's
 * own receiver): any fetch that started after the push was received has seen the pushed commit, so the Apps of
 * one push share one fetch instead of each forcing its own.
 */
export function freshness(op: Operation | undefined, maxAgeMs: number): FetchOptions {
  if (!op) return { maxAgeMs };
  const at = Date.parse(op.initiatedAt ?? '');
  if (op.triggeredBy?.startsWith('webhook:') && Number.isFinite(at)) return { startedAfter: at };
  return { maxAgeMs: 0 };
}

export interface RenderContext {
  repos: RepoCache;
  discovery: Discovery;
  tools?: ToolPaths;
  workDir?: string;
  /** Shared across Apps; without one every call renders. */
  renders?: RenderCache;
}

/** Renders the App at `revision` (a full commit id already in the cache). */
export async function renderAt(
  ctx: RenderContext,
  app: AppResource,
  git: GitSource,
  revision: string,
): Promise<KubeObject[]> {
  const namespace = app.spec.destination.namespace;
  const appName = app.metadata.name;
  const produce = async () => {
    const checkout = await exportRevision(ctx.repos, git.repoURL, revision, ctx.workDir);
    try {
      return await renderManifests({
        root: checkout.root,
        git,
        appName,
        namespace,
        ...(ctx.tools ? { tools: ctx.tools } : {}),
      });
    } finally {
      await checkout.dispose();
    }
  };
  const input = { repoURL: git.repoURL, revision, git, appName, namespace };
  const rendered = await (ctx.renders ? ctx.renders.render(input, produce) : produce());
  const scope = (v: string, k: string) => ctx.discovery.cachedNamespaced(v, k);
  const objects = finishObjects(rendered.objects, { git, namespace, scope });
  // Discovery may not have known these kinds before rendering: ask once, then correct the namespaces.
  await ctx.discovery.preload(objects.map((o) => o.apiVersion)).catch(() => undefined);
  return defaultNamespace(objects, namespace, scope);
}
