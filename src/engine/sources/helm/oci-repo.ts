/**
 * Charts in OCI registries (`oci://host[:port]/path` + chart name, as `helm push` stores them): versions are the
 * repository's tags (Helm writes `+` as `_` in tags), a version's digest is its manifest's, and the archive is the
 * manifest's chart layer. Everything goes through svc's one OCI client (src/registry: the outbound policy, Basic
 * and Bearer challenges, bounded reads, digests checked).
 */
import { InputError } from '../../../core/errors.ts';
import type { SourceAccess } from '../../../core/repository.ts';
import { type RegistryClient, type RegistryEndpoint, RegistryError } from '../../../registry/index.ts';
import { ChartFetchError, type ChartVersion } from './types.ts';

/** The media type of a chart's content layer. */
export const CHART_LAYER_MEDIA_TYPE = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip';

/** The registry endpoint and repository path of `oci://host/path` + `chart`, with `access` applied. */
export function ociTarget(
  repoURL: string,
  chart: string,
  access: SourceAccess | undefined,
): { endpoint: RegistryEndpoint; path: string } {
  const m = /^oci:\/\/([^/]+)(\/.*)?$/i.exec(repoURL.replace(/\/+$/, ''));
  if (!m?.[1]) throw new InputError('repoURL must be oci://<registry host>[/<path>]');
  const base = (m[2] ?? '').replace(/^\/+/, '');
  const c = access?.credentials;
  const endpoint: RegistryEndpoint = {
    host: m[1],
    ...(access?.insecure ? { insecure: true } : {}),
    ...(c?.ca ? { ca: c.ca } : {}),
    ...(c?.username !== undefined || c?.password !== undefined
      ? { credentials: { username: c?.username ?? '', password: c?.password ?? '' } }
      : {}),
    ...(c?.tlsClientCert && c.tlsClientKey ? { clientCert: { cert: c.tlsClientCert, key: c.tlsClientKey } } : {}),
  };
  return { endpoint, path: base ? `${base}/${chart}` : chart };
}

/** A registry failure as a ChartFetchError (same class and words). */
function chartError(err: unknown): unknown {
  return err instanceof RegistryError ? new ChartFetchError(err.errorClass, err.message, { cause: err }) : err;
}

/** Reads charts from OCI registries (see the module comment). */
export class OciChartRepos {
  readonly #client: RegistryClient;

  constructor(client: RegistryClient) {
    this.#client = client;
  }

  /** The chart's versions (its tags that are versions). */
  async versions(repoURL: string, chart: string, access: SourceAccess | undefined): Promise<ChartVersion[]> {
    const { endpoint, path } = ociTarget(repoURL, chart, access);
    try {
      const tags = await this.#client.tags(endpoint, path);
      return tags.map((t) => ({ version: t.replaceAll('_', '+'), urls: [] }));
    } catch (err) {
      throw chartError(err);
    }
  }

  /** The manifest digest of `version`. */
  async digest(repoURL: string, chart: string, version: string, access: SourceAccess | undefined): Promise<string> {
    const { endpoint, path } = ociTarget(repoURL, chart, access);
    try {
      return await this.#client.resolve(endpoint, path, version.replaceAll('+', '_'));
    } catch (err) {
      throw chartError(err);
    }
  }

  /** The chart archive of the manifest `digest` (its chart layer, at most `maxBytes`). */
  async archive(
    repoURL: string,
    chart: string,
    digest: string,
    access: SourceAccess | undefined,
    maxBytes: number,
  ): Promise<Buffer> {
    const { endpoint, path } = ociTarget(repoURL, chart, access);
    try {
      const { manifest } = await this.#client.manifest(endpoint, path, digest);
      const layers = (manifest as { layers?: { mediaType?: string; digest?: string }[] }).layers ?? [];
      const layer = layers.find((l) => l.mediaType === CHART_LAYER_MEDIA_TYPE);
      if (!layer?.digest) {
        throw new ChartFetchError('provider', `registry ${endpoint.host}: ${path}@${digest} is not a Helm chart`);
      }
      return await this.#client.blob(endpoint, path, layer.digest, maxBytes);
    } catch (err) {
      throw chartError(err);
    }
  }
}
