/**
 * The Git source driver: branch head and exact revisions through the shared repository cache (one bare
 * repository per URL), renders through the shared render cache (a miss exports a private checkout, always
 * removed, and runs the Raw, Kustomize or Helm renderer), then per App `${VAR}` substitution and the default
 * namespace.
 */
import type { AppResource, GitSource, Operation } from '../../core/app-schema.ts';
import { repoURLProblem } from '../../core/app-state.ts';
import { InputError } from '../../core/errors.ts';
import { exportRevision, type FetchOptions, type RepoCache } from '../../git/index.ts';
import {
  defaultNamespace,
  finishObjects,
  type KubeObject,
  type RenderCache,
  renderManifests,
  type ToolPaths,
} from '../../render/index.ts';
import type { RenderTarget, ResolvedSource, ResolveRequest, SourceDriver } from './types.ts';

/** What the Git driver shares across Apps. */
export interface GitDriverDeps {
  repos: RepoCache;
  /** Shared across Apps; without one every render runs the renderer. */
  renders?: RenderCache;
  tools?: ToolPaths;
  workDir?: string;
  /** A reconcile without an operation reuses a fetch younger than this (see `freshness`). */
  maxFetchAgeMs: number;
}

/** The Git block of an App; InputError (a stall: the spec cannot work) when it is missing or not remote. */
export function gitSourceOf(app: AppResource): GitSource {
  const git = app.spec.source.git;
  if (!git) throw new InputError('spec.source.git is required when source.type is Git');
  const problem = repoURLProblem(git.repoURL);
  if (problem) throw new InputError(problem.replace(/^source\./, 'spec.source.'));
  return git;
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

/** Resolves and renders `source.type: Git`. */
export class GitDriver implements SourceDriver {
  readonly #d: GitDriverDeps;

  constructor(deps: GitDriverDeps) {
    this.#d = deps;
  }

  async resolve(app: AppResource, request: ResolveRequest): Promise<ResolvedSource> {
    const git = gitSourceOf(app);
    const fresh = freshness(request.operation, this.#d.maxFetchAgeMs);
    const head = await this.#d.repos.resolveBranch(git.repoURL, git.branch || 'main', fresh);
    const revision =
      request.target === 'head' ? head : await this.#d.repos.resolveRevision(git.repoURL, request.target);
    return { head, revision };
  }

  async render(app: AppResource, revision: string, target: RenderTarget): Promise<KubeObject[]> {
    const git = gitSourceOf(app);
    const namespace = app.spec.destination.namespace;
    const appName = app.metadata.name;
    const { repos, renders, tools, workDir } = this.#d;
    const produce = async () => {
      const checkout = await exportRevision(repos, git.repoURL, revision, workDir);
      try {
        return await renderManifests({ root: checkout.root, git, appName, namespace, ...(tools ? { tools } : {}) });
      } finally {
        await checkout.dispose();
      }
    };
    const input = { repoURL: git.repoURL, revision, git, appName, namespace };
    const rendered = await (renders ? renders.render(input, produce) : produce());
    const scope = (v: string, k: string) => target.discovery.cachedNamespaced(v, k);
    const objects = finishObjects(rendered.objects, { git, namespace, scope });
    // Discovery may not have known these kinds before rendering: ask once, then correct the namespaces.
    await target.discovery.preload(objects.map((o) => o.apiVersion)).catch(() => undefined);
    return defaultNamespace(objects, namespace, scope);
  }
}
