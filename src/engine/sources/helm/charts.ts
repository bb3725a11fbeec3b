/**
 * One view of chart repositories for the driver, whatever their kind: a chart's versions (the HTTP repository's
 * index, or the OCI repository's tags, each kept per org and repository under the Git cache's freshness rule), a
 * version's digest, and its archive (kept per org and digest, checked against the digest it was resolved to, so a
 * version re-published with other content fails loudly instead of deploying what was not resolved).
 */
import { chartRepositoryKind } from '../../../core/helm-chart.ts';
import type { FetchOptions } from '../../../git/index.ts';
import type { OutboundPolicy } from '../../../net/outbound.ts';
import type { RegistryClient } from '../../../registry/index.ts';
import { FreshCache } from './fresh.ts';
import { type ChartIndex, HttpChartRepos } from './http-repo.ts';
import { OciChartRepos } from './oci-repo.ts';
import { ChartFetchError, type ChartLocation, type ChartVersion } from './types.ts';

/** What reading chart repositories needs. */
export interface ChartReposDeps {
  client: RegistryClient;
  policy: OutboundPolicy;
  /** Largest index or archive read (SVC_RENDER_MAX_MIB), and the timeout of one request (SVC_RENDER_TIMEOUT). */
  maxBytes: number;
  timeoutMs: number;
}

/** Archives kept (per org and digest); charts are small, and a miss costs one download. */
const ARCHIVES_KEPT = 128;

export class ChartRepos {
  readonly #http: HttpChartRepos;
  readonly #oci: OciChartRepos;
  readonly #maxBytes: number;
  readonly #indexes = new FreshCache<ChartIndex>(256);
  readonly #tags = new FreshCache<ChartVersion[]>(1024);
  readonly #archives = new Map<string, Buffer>();

  constructor(deps: ChartReposDeps) {
    this.#http = new HttpChartRepos({ policy: deps.policy, maxBytes: deps.maxBytes, timeoutMs: deps.timeoutMs });
    this.#oci = new OciChartRepos(deps.client);
    this.#maxBytes = deps.maxBytes;
  }

  /** How many index and tag listings were loaded (bench and tests). */
  get loads(): number {
    let n = 0;
    for (const v of this.#indexes.loads.values()) n += v;
    for (const v of this.#tags.loads.values()) n += v;
    return n;
  }

  /** The chart's versions as its repository lists them now (within `fresh`). */
  async versions(loc: ChartLocation, fresh: FetchOptions): Promise<ChartVersion[]> {
    if (chartRepositoryKind(loc.repoURL) === 'oci') {
      const key = `${loc.scope}\n${loc.repoURL}\n${loc.chart}`;
      return this.#tags.get(key, fresh, async () => this.#oci.versions(loc.repoURL, loc.chart, await loc.access()));
    }
    const index = await this.#indexes.get(`${loc.scope}\n${loc.repoURL}`, fresh, async () =>
      this.#http.index(loc.repoURL, await loc.access()),
    );
    const versions = index.get(loc.chart);
    if (!versions) {
      throw new ChartFetchError('notfound', `chart ${loc.chart} is not in the repository's index`);
    }
    return versions;
  }

  /** The digest of `entry` (listed, or asked of the registry, or the archive's own for an index without one). */
  async digestOf(loc: ChartLocation, entry: ChartVersion): Promise<string> {
    if (entry.digest) return entry.digest;
    const access = await loc.access();
    if (chartRepositoryKind(loc.repoURL) === 'oci') {
      return this.#oci.digest(loc.repoURL, loc.chart, entry.version, access);
    }
    const { archive, digest } = await this.#http.archive(loc.repoURL, loc.chart, entry, access, this.#maxBytes);
    this.#keep(`${loc.scope}\n${digest}`, archive);
    return digest;
  }

  /**
   * The archive of `version` whose digest is `digest`: kept, or fetched and checked. ChartFetchError when the
   * repository now has other content under that version.
   */
  async archive(loc: ChartLocation, version: string, digest: string): Promise<Buffer> {
    const key = `${loc.scope}\n${digest}`;
    const kept = this.#archives.get(key);
    if (kept) return kept;
    const access = await loc.access();
    let archive: Buffer;
    if (chartRepositoryKind(loc.repoURL) === 'oci') {
      archive = await this.#oci.archive(loc.repoURL, loc.chart, digest, access, this.#maxBytes);
    } else {
      const entry = (await this.versions(loc, { maxAgeMs: 60_000 })).find((v) => v.version === version);
      if (!entry) throw new ChartFetchError('notfound', `chart ${loc.chart} ${version} is no longer in the index`);
      const got = await this.#http.archive(loc.repoURL, loc.chart, entry, access, this.#maxBytes);
      if (got.digest !== digest) {
        throw new ChartFetchError(
          'provider',
          `chart ${loc.chart} ${version} now has digest ${got.digest}, not ${digest}: it was re-published with other content`,
        );
      }
      archive = got.archive;
    }
    this.#keep(key, archive);
    return archive;
  }

  #keep(key: string, archive: Buffer): void {
    this.#archives.delete(key);
    this.#archives.set(key, archive);
    while (this.#archives.size > ARCHIVES_KEPT) {
      const oldest = this.#archives.keys().next().value;
      if (oldest === undefined) break;
      this.#archives.delete(oldest);
    }
  }
}
