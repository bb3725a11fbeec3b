/**
 * Which Apps use which secret store (contract §2.7 `references`, §4.4 `GET …/references`; the contract's "always 0"
 * is a hole svc closes). Two uses exist: an image workload's `env[].store.id` (by store id, contract §2.3) and a Git
 * source's `decryption.storeRef` (by store name, like `registryRef`). Pure functions of App resources.
 */
import type { AppResource } from '../core/app-schema.ts';

/** One use of a store by an App. */
export interface StoreUse {
  /** `env`: an image workload's environment variable; `decryption`: SOPS decryption of a Git source. */
  usage: 'env' | 'decryption';
  /** The id (`env`) or name (`decryption`) the App names the store by. */
  ref: string;
  /** The environment variable (usage `env`). */
  env?: string;
}

/** Every store use in an App's spec. */
export function storeUsesOf(app: AppResource): StoreUse[] {
  const uses: StoreUse[] = [];
  const source = app.spec.source;
  const storeRef = source.git?.decryption?.storeRef;
  if (source.type === 'Git' && storeRef) uses.push({ usage: 'decryption', ref: storeRef });
  if (source.type === 'Image') {
    for (const env of source.image?.workload?.env ?? []) {
      if (env.store) uses.push({ usage: 'env', ref: env.store.id, env: env.name });
    }
  }
  return uses;
}

/** The uses in `app` of the store with this id and name. */
export function usesOfStore(app: AppResource, store: { id: string; name: string }): StoreUse[] {
  return storeUsesOf(app).filter((u) => (u.usage === 'env' ? u.ref === store.id : u.ref === store.name));
}
