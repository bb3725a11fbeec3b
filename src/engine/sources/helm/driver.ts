/**
 * The HelmChart source driver (contract §2.3 `source.type: HelmChart`). Revisions are `<chart>@<version>@<digest>`
 * (src/core/helm-chart.ts).
 *
 * Which version a reconcile targets:
 * - an exact revision (Rollback, Approve, a Deploy carrying one): that chart version, at the digest the revision
 *   names (or, given `<chart>@<version>` alone, the digest the repository lists for it now);
 * - anything else: the newest version of the chart that `version` (exact or a semver range) allows, from the
 *   repository's listing as fresh as the Git driver's fetches (a reconcile without an operation reuses a listing
 *   younger than `maxFetchAgeMs`; an operation lists anew). A new matching version is therefore a new head: an
 *   automated App deploys it by itself, like a new commit on a branch; a version outside the range never is.
 *
 * Rendering: the archive (kept per org and digest, checked against it), unpacked under the archive rules of
 * src/render/chart-archive.ts, its missing dependencies fetched with the org's credentials, then `helm template`
 * with the destination's Capabilities. Renders are kept per org, revision, options and Capabilities.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import type { AppResource, HelmChartSource } from '../../../core/app-schema.ts';
import { InputError } from '../../../core/errors.ts';
import { chartRevision, helmChartProblems, newestMatching, parseChartRevision } from '../../../core/helm-chart.ts';
import type { SourceAccess } from '../../../core/repository.ts';
import type { SourceAccessRequest } from '../../../internal/channel.ts';
import type { ServerCapabilities } from '../../../kube/index.ts';
import type { OutboundPolicy } from '../../../net/outbound.ts';
import type { RegistryClient } from '../../../registry/index.ts';
import {
  defaultNamespace,
  extractChartArchive,
  findTool,
  finishObjects,
  type KubeObject,
  renderChart,
  type ToolPaths,
} from '../../../render/index.ts';
import { DEFAULT_RENDER_LIMITS, RENDER_LIMIT_SETTINGS, type RenderLimits } from '../../../render/limits.ts';
import { freshness } from '../git.ts';
import type { RenderTarget, ResolvedSource, ResolveRequest, SourceDriver } from '../types.ts';
import { ChartRepos } from './charts.ts';
import { fetchDependencies } from './dependencies.ts';
import type { ChartLocation } from './types.ts';

/** Where credentials for a source come from (the server, over the internal channel or in process). */
export type SourceAccessLookup = (request: SourceAccessRequest) => Promise<SourceAccess | undefined>;

/** What the HelmChart driver shares across Apps. */
export interface HelmChartDriverDeps {
  /** The OCI client (OCI charts). */
  client: RegistryClient;
  /** The outbound policy every chart repository call is made under. */
  policy: OutboundPolicy;
  /** Credentials of the org's repositories; without it every chart is read anonymously. */
  access?: SourceAccessLookup;
  tools?: ToolPaths;
  limits?: RenderLimits;
  workDir?: string;
  /** A reconcile without an operation reuses a listing younger than this. */
  maxFetchAgeMs: number;
}

/**
 * Renders kept (per org, revision, release name, namespace, values and Capabilities). A chart's output depends on
 * the release name and namespace, so unlike Git renders each App has its own: keep enough for every App of a large
 * operator (a few KiB each), so a resync of an unchanged App runs no helm.
 */
const RENDERS_KEPT = 4096;

/** The HelmChart block of an App; InputError (a stall) when it is missing or invalid. */
export function helmChartSourceOf(app: AppResource): HelmChartSource {
  const chart = app.spec.source.helmChart;
  if (!chart) throw new InputError('spec.source.helmChart is required when source.type is HelmChart');
  const problems = helmChartProblems(chart, 'spec.source.helmChart');
  if (problems.length > 0) throw new InputError(problems.join('; '));
  return chart;
}

/** Resolves and renders `source.type: HelmChart`. */
export class HelmChartDriver implements SourceDriver {
  readonly #deps: HelmChartDriverDeps;
  readonly #charts: ChartRepos;
  readonly #limits: RenderLimits;
  readonly #renders = new Map<string, Promise<KubeObject[]>>();

  constructor(deps: HelmChartDriverDeps) {
    this.#deps = deps;
    this.#limits = deps.limits ?? DEFAULT_RENDER_LIMITS;
    this.#charts = new ChartRepos({
      client: deps.client,
      policy: deps.policy,
      maxBytes: this.#limits.maxBytes,
      timeoutMs: this.#limits.timeoutMs,
    });
  }

  /** Index and tag listings loaded so far (bench and tests). */
  get listings(): number {
    return this.#charts.loads;
  }

  async resolve(app: AppResource, request: ResolveRequest): Promise<ResolvedSource> {
    const source = helmChartSourceOf(app);
    const loc = this.#location(app, source.repoURL, source.chart, source.repositoryRef);
    const op = request.operation;
    const pin = op?.kind === 'Deploy' && op.revision ? op.revision : undefined;
    const exact = request.target !== 'head' ? request.target : pin;
    if (exact !== undefined) {
      const revision = await this.#exact(loc, exact);
      return { head: revision, revision, observed: app.status?.observedRevision ?? revision };
    }
    const range = source.version ?? '*';
    const versions = await this.#charts.versions(loc, freshness(op, this.#deps.maxFetchAgeMs));
    const version = newestMatching(
      versions.map((v) => v.version),
      range,
    );
    const entry = versions.find((v) => v.version === version);
    if (!entry) {
      throw new InputError(`no version of chart ${source.chart} matches ${range} (${newestListed(versions)})`, {
        retry: 'wait',
      });
    }
    const revision = chartRevision({
      chart: source.chart,
      version: entry.version,
      digest: await this.#charts.digestOf(loc, entry),
    });
    return { head: revision, revision };
  }

  async render(app: AppResource, revision: string, target: RenderTarget): Promise<KubeObject[]> {
    const source = helmChartSourceOf(app);
    const r = parseChartRevision(revision);
    if (!r?.digest) throw new InputError(`revision "${revision}" is not <chart>@<version>@<digest>`);
    const namespace = source.namespace || app.spec.destination.namespace;
    const release = source.releaseName || app.metadata.name;
    const capabilities = await target.discovery.capabilities().catch(() => undefined);
    const loc = this.#location(app, source.repoURL, source.chart, source.repositoryRef);
    const key = JSON.stringify([
      loc.scope,
      source.repoURL,
      revision,
      release,
      namespace,
      source.valuesFiles ?? [],
      source.values ?? {},
      capabilities ?? null,
    ]);
    let rendered = this.#renders.get(key);
    if (!rendered) {
      rendered = this.#produce(loc, { ...r, digest: r.digest }, source, { release, namespace, capabilities });
      this.#keep(key, rendered);
    }
    const objects = structuredClone(await rendered);
    const lookup = (v: string, k: string) => target.discovery.cachedNamespaced(v, k);
    const finished = finishObjects(objects, { git: {}, namespace: app.spec.destination.namespace, scope: lookup });
    await target.discovery.preload(finished.map((o) => o.apiVersion)).catch(() => undefined);
    return defaultNamespace(finished, app.spec.destination.namespace, lookup);
  }

  /** `<chart>@<version>[@<digest>]` of this App's chart as a full revision (the digest listed now when absent). */
  async #exact(loc: ChartLocation, text: string): Promise<string> {
    const r = parseChartRevision(text);
    if (!r || r.chart !== loc.chart) {
      throw new InputError(`revision "${text}" is not a version of chart ${loc.chart} (<chart>@<version>[@<digest>])`);
    }
    if (r.digest) return chartRevision({ ...r, digest: r.digest });
    const entry = (await this.#charts.versions(loc, { maxAgeMs: 0 })).find((v) => v.version === r.version);
    if (!entry) throw new InputError(`chart ${loc.chart} has no version ${r.version}`, { retry: 'wait' });
    return chartRevision({ ...r, digest: await this.#charts.digestOf(loc, entry) });
  }

  /** Fetches, unpacks (with dependencies) and renders one chart version; its temporary directory is always removed. */
  async #produce(
    loc: ChartLocation,
    r: { chart: string; version: string; digest: string },
    source: HelmChartSource,
    how: { release: string; namespace: string; capabilities: ServerCapabilities | undefined },
  ): Promise<KubeObject[]> {
    const archive = await this.#charts.archive(loc, r.version, r.digest);
    const dir = await mkdtemp(join(this.#deps.workDir ?? tmpdir(), 'svc-chart-'));
    const what = `${r.chart}@${r.version}`;
    const bounds = {
      maxBytes: this.#limits.maxCheckoutBytes,
      maxEntries: 10_000,
      setting: RENDER_LIMIT_SETTINGS.maxCheckoutBytes,
    };
    try {
      const chartDir = await extractChartArchive(archive, dir, what, bounds);
      await fetchDependencies(chartDir, {
        charts: this.#charts,
        locate: (repoURL, chart) => this.#locationIn(loc.orgNamespace, repoURL, chart, undefined),
        bounds,
        fetched: { count: 0 },
      });
      return await renderChart({
        chartDir,
        what,
        releaseName: how.release,
        namespace: how.namespace,
        ...(source.valuesFiles ? { valuesFiles: source.valuesFiles } : {}),
        ...(source.values ? { values: source.values } : {}),
        ...(how.capabilities ? { capabilities: how.capabilities } : {}),
        helm: findTool('helm', this.#deps.tools),
        limits: this.#limits,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  #location(app: AppResource, repoURL: string, chart: string, ref: string | undefined): ChartLocation {
    return this.#locationIn(app.metadata.namespace ?? '', repoURL, chart, ref);
  }

  #locationIn(scope: string, repoURL: string, chart: string, ref: string | undefined): ChartLocation {
    const lookup = this.#deps.access;
    const request: SourceAccessRequest = {
      orgNamespace: scope,
      type: 'helm',
      url: repoURL,
      ...(ref ? { repositoryRef: ref } : {}),
    };
    // An App naming a repository lists and caches under that name: one naming a missing repository never reads
    // what the org's other Apps fetched with theirs.
    const cacheScope = ref ? `${scope}/${ref}` : scope;
    return {
      orgNamespace: scope,
      scope: cacheScope,
      repoURL,
      chart,
      access: async () => (lookup ? lookup(request) : undefined),
    };
  }

  #keep(key: string, rendered: Promise<KubeObject[]>): void {
    this.#renders.set(key, rendered);
    rendered.catch(() => {
      if (this.#renders.get(key) === rendered) this.#renders.delete(key);
    });
    while (this.#renders.size > RENDERS_KEPT) {
      const oldest = this.#renders.keys().next().value;
      if (oldest === undefined) break;
      this.#renders.delete(oldest);
    }
  }
}

/** "newest listed: 2.0.0, 1.9.1, …" for an error message. */
function newestListed(versions: { version: string }[]): string {
  const sorted = versions
    .map((v) => v.version)
    .filter((v) => semver.valid(v) !== null)
    .sort(semver.rcompare);
  return sorted.length === 0 ? 'the repository lists no version' : `newest listed: ${sorted.slice(0, 5).join(', ')}`;
}
