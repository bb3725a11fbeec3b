/**
 * What a reader of the server's App cache sees: the org namespaces' App resources as last listed and watched, and
 * their changes. The API's App store (src/api/kube/apps-repo.ts) provides it; the incident detector reads it without
 * depending on the API.
 */
import type { AppResource } from './app-schema.ts';

/** A read-only view of the App cache. */
export interface AppCacheReader {
  /** True once the cache has listed every App at least once. */
  readonly synced: boolean;
  /** Calls `listener` with every App that changes (and `deleted` for one that is gone); returns the unsubscribe. */
  onChange(listener: (app: AppResource, deleted: boolean) => void): () => void;
  /** Every cached App. */
  cachedApps(): AppResource[];
  /** One cached App, or undefined. */
  cached(namespace: string, name: string): AppResource | undefined;
}
