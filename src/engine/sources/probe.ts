/**
 * Testing a repository and listing its charts, as the API's repository routes need them: `git ls-remote` for a
 * Git repository, the index for an HTTP(S) chart repository, the registry's API (`GET /v2/` through its auth
 * challenge) for an OCI one; each with the repository's credentials, under the outbound policy, with the failure
 * classified (the errorClass of registries and secret stores, plus `hostkey`).
 */
import semver from 'semver';
import { chartRepositoryKind } from '../../core/helm-chart.ts';
import type { RepositoryType, SourceAccess } from '../../core/repository.ts';
import { type GitFailureClass, GitFetchError, type RepoCache } from '../../git/index.ts';
import type { OutboundPolicy } from '../../net/outbound.ts';
import { type RegistryClient, RegistryError, type RegistryErrorClass } from '../../registry/index.ts';
import { HttpChartRepos } from './helm/http-repo.ts';
import { OciChartRepos, ociTarget } from './helm/oci-repo.ts';
import { ChartFetchError, type ChartFetchErrorClass } from './helm/types.ts';

/** Why a test failed: the classes of git, chart repository and registry failures. */
export type ProbeErrorClass = GitFailureClass | ChartFetchErrorClass | RegistryErrorClass;

/** The result of a test (the shape of contract §4.4 rule 3, as registries answer it). */
export type ProbeResult =
  | { status: 'connected'; latency: number; details: { url: string; authenticated: boolean; found: number } }
  | { status: 'error'; error: string; errorClass: ProbeErrorClass };

/** What probing needs. */
export interface ProbeDeps {
  repos: RepoCache;
  client: RegistryClient;
  policy: OutboundPolicy;
  /** Largest index read and timeout of one call. */
  maxBytes: number;
  timeoutMs: number;
}

/** One chart of a repository and its versions, newest first. */
export interface ChartListing {
  name: string;
  versions: string[];
}

function failed(err: unknown): ProbeResult | undefined {
  if (err instanceof GitFetchError || err instanceof ChartFetchError || err instanceof RegistryError) {
    return { status: 'error', error: err.message, errorClass: err.errorClass };
  }
  return undefined;
}

/**
 * Tests that `url` (a repository of `type`) answers and takes `access`: `found` is the number of refs (Git),
 * charts (HTTP index) or 1 (an OCI registry that answered).
 */
export async function probeRepository(
  deps: ProbeDeps,
  type: RepositoryType,
  url: string,
  access: SourceAccess | undefined,
): Promise<ProbeResult> {
  const started = performance.now();
  try {
    let found: number;
    if (type === 'git') {
      found = await deps.repos.lsRemote({ url, credentials: async () => access?.credentials });
    } else if (chartRepositoryKind(url) === 'oci') {
      await deps.client.ping(ociTarget(url, 'x', access).endpoint);
      found = 1;
    } else {
      found = (await new HttpChartRepos(deps).index(url, access)).size;
    }
    const authenticated = access !== undefined && Object.keys(access.credentials).length > 0;
    return {
      status: 'connected',
      latency: Math.round(performance.now() - started),
      details: { url, authenticated, found },
    };
  } catch (err) {
    const result = failed(err);
    if (result) return result;
    throw err;
  }
}

/**
 * The charts of a Helm repository with their versions (newest first): every chart of an HTTP(S) index, or, for an
 * OCI registry (which has no index), the versions of `chart`. Throws the fetch's typed error.
 */
export async function listCharts(
  deps: ProbeDeps,
  url: string,
  access: SourceAccess | undefined,
  chart?: string,
): Promise<ChartListing[]> {
  const newestFirst = (versions: string[]) =>
    [...new Set(versions.filter((v) => semver.valid(v) !== null))].sort(semver.rcompare);
  if (chartRepositoryKind(url) === 'oci') {
    if (!chart) return [];
    const versions = await new OciChartRepos(deps.client).versions(url, chart, access);
    return [{ name: chart, versions: newestFirst(versions.map((v) => v.version)) }];
  }
  const index = await new HttpChartRepos(deps).index(url, access);
  return [...index.entries()]
    .filter(([name]) => chart === undefined || name === chart)
    .map(([name, versions]) => ({ name, versions: newestFirst(versions.map((v) => v.version)) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
