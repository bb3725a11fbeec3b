/**
 * HTTP(S) chart repositories: the `index.yaml` (every chart's versions, their archive URLs and digests) and the
 * archives it points at, fetched under the outbound policy (src/net) within the render bounds.
 *
 * Credentials go to the repository's own origin only. An index may list archive URLs on any host (a CDN, or a
 * hostile index pointing at a host that collects credentials, the class of Argo CD's 2026-11 advisory): those are
 * fetched without the repository's Authorization header or client certificate, as Helm does unless told
 * `--pass-credentials`. An archive is checked against the digest the index gives for it.
 */
import { createHash } from 'node:crypto';
import type { RequestInit, Response } from 'undici';
import { parse } from 'yaml';
import { InputError, UpstreamError } from '../../../core/errors.ts';
import type { SourceAccess } from '../../../core/repository.ts';
import { classifyNetworkFailure } from '../../../net/errors.ts';
import { type OutboundOptions, type OutboundPolicy, outboundFetch } from '../../../net/outbound.ts';
import { describeBytes, RENDER_LIMIT_SETTINGS } from '../../../render/limits.ts';
import { ChartFetchError, type ChartVersion } from './types.ts';

/** A chart repository's index, reduced to what svc reads: chart name → its versions. */
export type ChartIndex = Map<string, ChartVersion[]>;

/** Where the index of `repoURL` is. */
export function indexURL(repoURL: string): string {
  return `${repoURL.replace(/\/+$/, '')}/index.yaml`;
}

/** The request options that carry `access` (to the repository's own origin only). */
function requestFor(
  access: SourceAccess | undefined,
  sameOrigin: boolean,
): { init: RequestInit; options: OutboundOptions } {
  const c = access?.credentials;
  const headers: Record<string, string> = {};
  const options: OutboundOptions = {};
  if (c?.ca) options.ca = c.ca;
  if (sameOrigin && c) {
    if (c.username !== undefined || c.password !== undefined) {
      headers['authorization'] = `Basic ${Buffer.from(`${c.username ?? ''}:${c.password ?? ''}`).toString('base64')}`;
    }
    if (c.tlsClientCert && c.tlsClientKey) options.clientCert = { cert: c.tlsClientCert, key: c.tlsClientKey };
  }
  return { init: { method: 'GET', headers }, options };
}

/** Fetches `url` and reads at most `maxBytes` of its body; ChartFetchError naming the cause otherwise. */
async function fetchBounded(
  url: URL,
  what: string,
  access: SourceAccess | undefined,
  sameOrigin: boolean,
  bounds: { policy: OutboundPolicy; maxBytes: number; timeoutMs: number },
): Promise<Buffer> {
  const { init, options } = requestFor(access, sameOrigin);
  let res: Response;
  try {
    res = await outboundFetch(url, init, bounds.policy, { ...options, timeoutMs: bounds.timeoutMs });
  } catch (err) {
    const failure = classifyNetworkFailure(url.host, err);
    throw new ChartFetchError(failure.errorClass, `${what}: ${failure.message}`, { cause: err });
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    const why = access ? 'credentials rejected' : 'credentials required (register a repository)';
    throw new ChartFetchError('auth', `${what}: ${url.host} answered ${res.status} (${why})`);
  }
  if (res.status === 404) {
    await res.body?.cancel();
    throw new ChartFetchError('notfound', `${what}: ${url.host} answered 404 (not found)`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new ChartFetchError('provider', `${what}: ${url.host} answered ${res.status}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += (chunk as Uint8Array).length;
    if (size > bounds.maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw new ChartFetchError(
        'provider',
        `${what} is larger than ${describeBytes(bounds.maxBytes)} (${RENDER_LIMIT_SETTINGS.maxBytes})`,
      );
    }
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}

/** The digest of an index entry as svc writes digests (`sha256:<hex>`), or undefined. */
function entryDigest(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const hex = value.replace(/^sha256:/, '').toLowerCase();
  return /^[a-f0-9]{64}$/.test(hex) ? `sha256:${hex}` : undefined;
}

/** Reads the entries of an index.yaml text. UpstreamError when it is not an index. */
export function parseIndex(text: string, what: string): ChartIndex {
  let doc: unknown;
  try {
    // A hostile index cannot blow up memory through YAML aliases (billion laughs).
    doc = parse(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new UpstreamError(`${what} is not YAML`, { cause: err });
  }
  const entries = (doc as { entries?: unknown } | null)?.entries;
  if (typeof entries !== 'object' || entries === null) throw new UpstreamError(`${what} has no entries`);
  const index: ChartIndex = new Map();
  for (const [name, list] of Object.entries(entries as Record<string, unknown>)) {
    if (!Array.isArray(list)) continue;
    const versions: ChartVersion[] = [];
    for (const e of list as Record<string, unknown>[]) {
      if (typeof e?.['version'] !== 'string' || !Array.isArray(e['urls'])) continue;
      const urls = (e['urls'] as unknown[]).filter((u): u is string => typeof u === 'string');
      const digest = entryDigest(e['digest']);
      versions.push({ version: e['version'], urls, ...(digest ? { digest } : {}) });
    }
    index.set(name, versions);
  }
  return index;
}

/** Reads HTTP(S) chart repositories (see the module comment). */
export class HttpChartRepos {
  readonly #bounds: { policy: OutboundPolicy; maxBytes: number; timeoutMs: number };

  constructor(bounds: { policy: OutboundPolicy; maxBytes: number; timeoutMs: number }) {
    this.#bounds = bounds;
  }

  /** The index of `repoURL`, with `access` (its credentials). ChartFetchError naming the cause. */
  async index(repoURL: string, access: SourceAccess | undefined): Promise<ChartIndex> {
    const url = new URL(indexURL(repoURL));
    const what = `chart repository index ${url.host}${url.pathname}`;
    const body = await fetchBounded(url, what, access, true, this.#bounds);
    return parseIndex(body.toString('utf8'), what);
  }

  /**
   * The archive of `entry` (its first URL, relative to `repoURL` or absolute), checked against the entry's digest
   * when it has one. Credentials go only to `repoURL`'s origin. Answers the archive and its digest.
   */
  async archive(
    repoURL: string,
    chart: string,
    entry: ChartVersion,
    access: SourceAccess | undefined,
    maxBytes: number,
  ): Promise<{ archive: Buffer; digest: string }> {
    const first = entry.urls[0];
    if (!first) throw new InputError(`chart ${chart} ${entry.version} has no archive URL in the index`);
    const base = new URL(`${repoURL.replace(/\/+$/, '')}/`);
    let url: URL;
    try {
      url = new URL(first, base);
    } catch (err) {
      throw new UpstreamError(`chart ${chart} ${entry.version}: archive URL is not a URL`, { cause: err });
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new UpstreamError(`chart ${chart} ${entry.version}: archive URL is not http(s)`);
    }
    const what = `chart ${chart} ${entry.version} archive`;
    const archive = await fetchBounded(url, what, access, url.origin === base.origin, { ...this.#bounds, maxBytes });
    const digest = `sha256:${createHash('sha256').update(archive).digest('hex')}`;
    if (entry.digest && entry.digest !== digest) {
      throw new UpstreamError(`${what} does not match the digest in the index (${entry.digest})`);
    }
    return { archive, digest };
  }
}
