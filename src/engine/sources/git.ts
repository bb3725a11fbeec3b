/**
 * The Git source driver: branch head and exact revisions through the shared repository cache (one bare
 * repository per URL), renders through the shared render cache (a miss exports a private checkout, always
 * removed, and runs the Raw, Kustomize or Helm renderer), then per App `${VAR}` substitution and the default
 * namespace.
 *
 * An App with `decryption` (SOPS, docs/operator.md "SOPS decryption") renders past the cache: the age identity comes
 * from the server for this render only (the internal channel; the operator stores no key), the checkout is exported
 * into memory-backed storage when the host has it, the SOPS files the render reads are decrypted there with the sops
 * binary, and the plaintext lives only in that checkout (removed when the render ends) and in the returned objects.
 * The render cache never holds a decrypted render.
 */
import type { AppResource, GitSource, Operation } from '../../core/app-schema.ts';
import { InputError, UnavailableError } from '../../core/errors.ts';
import { gitArgProblems } from '../../core/git-source-args.ts';
import type { SourceAccess } from '../../core/repository.ts';
import { exportRevision, type FetchOptions, type GitRemote, type RepoCache } from '../../git/index.ts';
import type { ServerChannel, SourceAccessRequest } from '../../internal/channel.ts';
import { checkOutboundHost, type OutboundPolicy } from '../../net/outbound.ts';
import {
  type Decrypt,
  defaultNamespace,
  finishObjects,
  type KubeObject,
  type RenderCache,
  type RenderResult,
  renderManifests,
  sopsDecryptor,
  type ToolPaths,
  withSecretDigests,
} from '../../render/index.ts';
import { RENDER_LIMIT_SETTINGS, type RenderLimits } from '../../render/limits.ts';
import type { RenderTarget, ResolvedSource, ResolveRequest, RevisionDetails, SourceDriver } from './types.ts';

/** What the Git driver shares across Apps. */
export interface GitDriverDeps {
  repos: RepoCache;
  /** Shared across Apps; without one every render runs the renderer. */
  renders?: RenderCache;
  tools?: ToolPaths;
  /** Time and size bounds of each render (config `render`; default DEFAULT_RENDER_LIMITS). */
  limits?: RenderLimits;
  workDir?: string;
  /** A reconcile without an operation reuses a fetch younger than this (see `freshness`). */
  maxFetchAgeMs: number;
  /** Where decryption keys come from (the internal channel); without it an App with `decryption` fails to render. */
  keys?: Pick<ServerChannel, 'decryptionKey'>;
  /** Where a decrypting render exports its checkout (memory-backed when the host has it); default `workDir`. */
  secretWorkDir?: string;
  /** Credentials of the org's repositories (asked at each fetch); without it every repository is read anonymously. */
  access?: (request: SourceAccessRequest) => Promise<SourceAccess | undefined>;
}

/** The host a Git URL connects to (https, http, ssh, git or scp-like `user@host:path`), or undefined. */
export function gitHostOf(url: string): string | undefined {
  const scp = /^[\w.-]+@([\w.-]+):(?!\/\/)/.exec(url);
  if (scp) return scp[1];
  try {
    const host = new URL(url).hostname;
    return host === '' ? undefined : host;
  } catch {
    return undefined;
  }
}

/**
 * The outbound address policy as a RepoCache guard: a Git host must resolve only to addresses the policy allows
 * (a repository at a link-local address is refused before git runs). The scheme is git's affair (ssh, git, http).
 * git resolves the name again itself: the check narrows, it does not pin, the address (docs/compatibility.md).
 */
export function gitGuard(policy: OutboundPolicy): (url: string) => Promise<void> {
  return async (url) => {
    const host = gitHostOf(url);
    if (host) await checkOutboundHost(host, policy);
  };
}

/**
 * The Git block of an App; InputError (a stall: the spec cannot work) when it is missing, not remote, or has a field
 * a tool could read as an option (an App edited past the API's create rules).
 */
export function gitSourceOf(app: AppResource): GitSource {
  const git = app.spec.source.git;
  if (!git) throw new InputError('spec.source.git is required when source.type is Git');
  const problems = gitArgProblems(git, 'spec.source.git');
  if (problems.length > 0) throw new InputError(problems.join('; '));
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

/**
 * A repository of the org owning `orgNamespace` as the repository cache sees it: the org's own copy, fetched with
 * the credentials of the repository it names (`repositoryRef`) or else the org's covering one, asked at each fetch.
 * The one rule for an App's Git source and an AppSet's Git generators.
 */
export function orgRemote(
  orgNamespace: string,
  git: { repoURL: string; repositoryRef?: string | undefined },
  access: GitDriverDeps['access'],
): GitRemote {
  const request: SourceAccessRequest = {
    orgNamespace,
    type: 'git',
    url: git.repoURL,
    ...(git.repositoryRef ? { repositoryRef: git.repositoryRef } : {}),
  };
  // A source naming a repository has a cache of its own: one that names a missing repository never reads what the
  // org's other Apps fetched with theirs.
  return {
    url: git.repoURL,
    scope: git.repositoryRef ? `${orgNamespace}/${git.repositoryRef}` : orgNamespace,
    credentials: async () => (access ? (await access(request))?.credentials : undefined),
  };
}

/** Resolves and renders `source.type: Git`. */
export class GitDriver implements SourceDriver {
  readonly #deps: GitDriverDeps;

  constructor(deps: GitDriverDeps) {
    this.#deps = deps;
  }

  async resolve(app: AppResource, request: ResolveRequest): Promise<ResolvedSource> {
    const git = gitSourceOf(app);
    const remote = this.#remote(app, git);
    const fresh = freshness(request.operation, this.#deps.maxFetchAgeMs);
    const head = await this.#deps.repos.resolveBranch(remote, git.branch || 'main', fresh);
    const revision = request.target === 'head' ? head : await this.#deps.repos.resolveRevision(remote, request.target);
    return { head, revision };
  }

  /** The commit `ref` names in the App's repository now (RepoCache.resolveRef: pull-request refs fetched alone). */
  async resolveRef(app: AppResource, ref: string): Promise<string> {
    const git = gitSourceOf(app);
    return this.#deps.repos.resolveRef(this.#remote(app, git), ref, this.#deps.maxFetchAgeMs);
  }

  /** The App's repository as the cache sees it: its org's copy, fetched with the org's credentials for it. */
  #remote(app: AppResource, git: GitSource): GitRemote {
    return orgRemote(app.metadata.namespace ?? '', git, this.#deps.access);
  }

  /** Subject, author and date of each revision's commit, read from the shared repository cache (one `git log`). */
  async describe(app: AppResource, revisions: readonly string[]): Promise<Map<string, RevisionDetails>> {
    return this.#deps.repos.commits(this.#remote(app, gitSourceOf(app)), revisions, this.#deps.maxFetchAgeMs);
  }

  async render(app: AppResource, revision: string, target: RenderTarget): Promise<KubeObject[]> {
    const git = gitSourceOf(app);
    const namespace = app.spec.destination.namespace;
    const appName = app.metadata.name;
    const { repos, renders, tools, workDir } = this.#deps;
    const produce = async (decrypt?: Decrypt, dir = workDir): Promise<RenderResult> => {
      const limits = this.#deps.limits;
      const bounds = limits
        ? {
            maxBytes: limits.maxCheckoutBytes,
            timeoutMs: limits.timeoutMs,
            settings: { maxBytes: RENDER_LIMIT_SETTINGS.maxCheckoutBytes, timeoutMs: RENDER_LIMIT_SETTINGS.timeoutMs },
          }
        : undefined;
      const checkout = await exportRevision(repos, this.#remote(app, git), revision, dir, bounds);
      try {
        const request = {
          root: checkout.root,
          git,
          appName,
          namespace,
          ...(tools ? { tools } : {}),
          ...(this.#deps.limits ? { limits: this.#deps.limits } : {}),
        };
        return await renderManifests(decrypt ? { ...request, decrypt } : request);
      } finally {
        await checkout.dispose();
      }
    };
    const input = {
      scope: this.#remote(app, git).scope ?? '',
      repoURL: git.repoURL,
      revision,
      git,
      appName,
      namespace,
    };
    let ageKey: string | undefined;
    let rendered: RenderResult;
    if (git.decryption) {
      ageKey = await this.#decryptionKey(app, git.decryption.storeRef);
      const sops = sopsDecryptor(tools?.sops ?? 'sops', ageKey, git.decryption.storeRef);
      rendered = await produce(sops, this.#deps.secretWorkDir ?? workDir);
    } else {
      rendered = await (renders ? renders.render(input, () => produce()) : produce());
    }
    const scope = (v: string, k: string) => target.discovery.cachedNamespaced(v, k);
    const finished = finishObjects(rendered.objects, { git, namespace, scope });
    const objects = ageKey === undefined ? finished : withSecretDigests(finished, ageKey);
    // Discovery may not have known these kinds before rendering: ask once, then correct the namespaces.
    await target.discovery.preload(objects.map((o) => o.apiVersion)).catch(() => undefined);
    return defaultNamespace(objects, namespace, scope);
  }

  /** The age identity of the App's decryption store, from the server (held in memory for this render only). */
  async #decryptionKey(app: AppResource, storeRef: string): Promise<string> {
    if (!this.#deps.keys) {
      throw new UnavailableError(
        'spec.source.git.decryption needs the channel to the server, which holds the key (svc start, or SVC_SERVER_URL with an operator credential)',
        { retry: 'wait' },
      );
    }
    return this.#deps.keys.decryptionKey({
      appNamespace: app.metadata.namespace ?? '',
      appName: app.metadata.name,
      storeRef,
    });
  }
}
