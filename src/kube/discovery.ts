/**
 * API discovery: which resource (plural) serves an apiVersion/kind and whether it is namespaced. Cached per
 * apiVersion; a kind not found triggers one refresh (a CRD may just have been created).
 */
import type { KubeClient } from './client.ts';
import { KubeApiError } from './errors.ts';

export interface ResourceInfo {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  verbs: string[];
}

interface ApiResourceList {
  resources: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

/** Path prefix of an apiVersion: `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export function apiPrefix(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** What a server says of itself for Helm's `.Capabilities`: its version and the API group versions it serves. */
export interface ServerCapabilities {
  /** `v1.35.4` style (gitVersion without build suffixes). */
  kubeVersion: string;
  /** `v1` and every `group/version` the server serves. */
  apiVersions: string[];
}

/** How long capabilities are reused: a CRD installed meanwhile shows within this. */
const CAPABILITIES_TTL_MS = 60_000;

/** Discovery cache of one API server. */
export class Discovery {
  readonly #client: KubeClient;
  readonly #cache = new Map<string, Map<string, ResourceInfo>>();
  #capabilities: { at: number; answer: Promise<ServerCapabilities> } | undefined;

  constructor(client: KubeClient) {
    this.#client = client;
  }

  /** The resource serving `apiVersion`/`kind`, or undefined when the server does not know it. */
  async lookup(apiVersion: string, kind: string): Promise<ResourceInfo | undefined> {
    const cached = this.#cache.get(apiVersion)?.get(kind);
    if (cached) return cached;
    await this.#load(apiVersion);
    return this.#cache.get(apiVersion)?.get(kind);
  }

  /** Like lookup, but throws a KubeApiError (404) naming the kind when unknown. */
  async require(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const info = await this.lookup(apiVersion, kind);
    if (!info) throw new KubeApiError(404, 'NotFound', `the server does not serve ${kind} in ${apiVersion}`);
    return info;
  }

  /** Synchronous answer from the cache only (for renderers); undefined when not cached. */
  cachedNamespaced(apiVersion: string, kind: string): boolean | undefined {
    return this.#cache.get(apiVersion)?.get(kind)?.namespaced;
  }

  /** Loads the given apiVersions into the cache (unknown versions are skipped). */
  async preload(apiVersions: Iterable<string>): Promise<void> {
    await Promise.all([...new Set(apiVersions)].filter((v) => !this.#cache.has(v)).map((v) => this.#load(v)));
  }

  /**
   * The server's version and API group versions (GET /version, /api, /apis), kept for a minute; a failure is not
   * kept.
   */
  capabilities(): Promise<ServerCapabilities> {
    const held = this.#capabilities;
    if (held && Date.now() - held.at < CAPABILITIES_TTL_MS) return held.answer;
    const answer = this.#loadCapabilities();
    const entry = { at: Date.now(), answer };
    this.#capabilities = entry;
    answer.catch(() => {
      if (this.#capabilities === entry) this.#capabilities = undefined;
    });
    return answer;
  }

  async #loadCapabilities(): Promise<ServerCapabilities> {
    const [version, core, groups] = await Promise.all([
      this.#client.request<{ gitVersion?: string }>('/version'),
      this.#client.request<{ versions?: string[] }>('/api'),
      this.#client.request<{ groups?: { versions?: { groupVersion: string }[] }[] }>('/apis'),
    ]);
    const apiVersions = [
      ...(core.versions ?? []),
      ...(groups.groups ?? []).flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion)),
    ];
    const kubeVersion = /^v?\d+\.\d+\.\d+/.exec(version.gitVersion ?? '')?.[0] ?? '';
    return { kubeVersion, apiVersions: [...new Set(apiVersions)].sort() };
  }

  /** Forgets everything (after CRDs were created). */
  invalidate(apiVersion?: string): void {
    if (apiVersion) this.#cache.delete(apiVersion);
    else {
      this.#cache.clear();
      this.#capabilities = undefined;
    }
  }

  async #load(apiVersion: string): Promise<void> {
    let list: ApiResourceList;
    try {
      list = await this.#client.request<ApiResourceList>(apiPrefix(apiVersion));
    } catch (err) {
      if (err instanceof KubeApiError && (err.status === 404 || err.status === 503)) return;
      throw err;
    }
    const byKind = new Map<string, ResourceInfo>();
    for (const r of list.resources ?? []) {
      if (r.name.includes('/')) continue;
      byKind.set(r.kind, { apiVersion, kind: r.kind, plural: r.name, namespaced: r.namespaced, verbs: r.verbs ?? [] });
    }
    this.#cache.set(apiVersion, byKind);
  }
}
