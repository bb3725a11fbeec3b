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

/** Discovery cache of one API server. */
export class Discovery {
  readonly #client: KubeClient;
  readonly #cache = new Map<string, Map<string, ResourceInfo>>();

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

  /** Forgets everything (after CRDs were created). */
  invalidate(apiVersion?: string): void {
    if (apiVersion) this.#cache.delete(apiVersion);
    else this.#cache.clear();
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
