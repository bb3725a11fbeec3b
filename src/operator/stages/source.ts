/**
 * Resolve and render a Git source: branch head (through the shared repository cache), the exact target
 * revision, a private checkout, and the renderer. The checkout is always removed.
 */
import type { AppResource, GitSource } from '../../core/app-schema.ts';
import { InputError } from '../../core/errors.ts';
import { exportRevision, type RepoCache } from '../../git/index.ts';
import type { Discovery } from '../../kube/index.ts';
import { defaultNamespace, type KubeObject, renderGitSource, type ToolPaths } from '../../render/index.ts';

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
export function resolveHead(repos: RepoCache, git: GitSource, maxAgeMs: number): Promise<string> {
  return repos.resolveBranch(git.repoURL, git.branch || 'main', { maxAgeMs });
}

export interface RenderContext {
  repos: RepoCache;
  discovery: Discovery;
  tools?: ToolPaths;
  workDir?: string;
}

/** Renders the App at `revision` (a full commit id already in the cache). */
export async function renderAt(
  ctx: RenderContext,
  app: AppResource,
  git: GitSource,
  revision: string,
): Promise<KubeObject[]> {
  const checkout = await exportRevision(ctx.repos, git.repoURL, revision, ctx.workDir);
  try {
    const namespace = app.spec.destination.namespace;
    const { objects } = await renderGitSource({
      root: checkout.root,
      git,
      appName: app.metadata.name,
      namespace,
      ...(ctx.tools ? { tools: ctx.tools } : {}),
      scope: (v, k) => ctx.discovery.cachedNamespaced(v, k),
    });
    // Discovery may not have known these kinds before rendering: ask once, then correct the namespaces.
    await ctx.discovery.preload(objects.map((o) => o.apiVersion)).catch(() => undefined);
    return defaultNamespace(objects, namespace, (v, k) => ctx.discovery.cachedNamespaced(v, k));
  } finally {
    await checkout.dispose();
  }
}
