/**
 * The server's side of secret-store fetches at render time (the internal channel's `decryptionKey` and
 * `envValues`): the operator holds no store credentials, so it asks the server, which
 * 1. finds the org owning the App's namespace, and the App itself on the management cluster;
 * 2. checks the App names the store it asks about (an operator credential cannot read a store no App uses);
 * 3. rate-limits per App (contract §8: fetches are rate-limited);
 * 4. opens the store's sealed credentials and fetches (vault/openbao: KV v2 reads) or answers what an ExternalSecret
 *    needs (eso), or hands over the age identity for one decryption (sops).
 * Values and keys are returned to the caller only; nothing here logs them.
 */
import type { Kysely } from 'kysely';
import { ForbiddenError, InputError, NotFoundError, RateLimitedError } from '../../core/errors.ts';
import type {
  AppIdentity,
  DecryptionKeyRequest,
  EnvStoreRef,
  EnvValuesRequest,
  ResolvedEnv,
} from '../../internal/channel.ts';
import type { OutboundPolicy } from '../../net/outbound.ts';
import type { RateLimiter } from '../../net/rate-limit.ts';
import type { AgeCredentials, EsoConfig, VaultConfig, VaultCredentials } from '../../secrets/providers.ts';
import { type StoreUse, usesOfStore } from '../../secrets/references.ts';
import type { Sealer } from '../../secrets/seal.ts';
import { readVaultValues } from '../../secrets/vault.ts';
import type { Tables } from '../../store/database.ts';
import { orgIdOfNamespace } from '../../store/orgs.ts';
import { credentialsContext, type SecretStoreRecord, SecretStoreStore } from '../../store/secret-stores.ts';
import type { KubeApps } from '../kube/apps-repo.ts';

export interface SecretValueDeps {
  db: Kysely<Tables>;
  sealer: Sealer;
  outbound: OutboundPolicy;
  timeoutMs: number;
  /** The management cluster's Apps; without one no App exists, so nothing resolves. */
  kube: KubeApps | undefined;
  /** Fetches per App. */
  fetchLimiter: RateLimiter;
}

/** Resolves secret-store values for Apps (see the module comment). */
export class SecretValueResolver {
  readonly #deps: SecretValueDeps;
  readonly #rows: SecretStoreStore;

  constructor(deps: SecretValueDeps) {
    this.#deps = deps;
    this.#rows = new SecretStoreStore(deps.db);
  }

  /** The age identity of the sops store the App's `decryption.storeRef` names. */
  async decryptionKey(request: DecryptionKeyRequest): Promise<string> {
    const { orgId, app } = await this.#begin(request);
    const store = await this.#rows.getByName(orgId, request.storeRef);
    if (!store)
      throw new NotFoundError(`no secret store named "${request.storeRef}" in the App's org`, { retry: 'wait' });
    this.#requireUse(app, store, request, 'decryption');
    if (store.type !== 'sops' || store.provider !== 'age') {
      throw new InputError(
        `secret store "${store.name}" is a ${store.type}/${store.provider} store: decryption needs a sops store (provider age)`,
      );
    }
    return this.#open<AgeCredentials>(store).privateKey;
  }

  /** The App's env.store values, in request order (one login and mount check per vault store). */
  async envValues(request: EnvValuesRequest): Promise<ResolvedEnv[]> {
    const { orgId, app } = await this.#begin(request);
    const byStore = new Map<string, EnvStoreRef[]>();
    for (const ref of request.refs) byStore.set(ref.id, [...(byStore.get(ref.id) ?? []), ref]);
    const resolved = new Map<EnvStoreRef, ResolvedEnv>();
    for (const [id, refs] of byStore) {
      const store = await this.#rows.get(orgId, id);
      if (!store) throw new NotFoundError(`no secret store with id "${id}" in the App's org`, { retry: 'wait' });
      this.#requireUse(app, store, request, 'env');
      for (const [ref, env] of (await this.#resolve(store, refs)).entries()) resolved.set(ref, env);
    }
    return request.refs.map((ref) => resolved.get(ref) as ResolvedEnv);
  }

  /** The entries of one store: values read from vault/openbao, or the ExternalSecret descriptors of an eso store. */
  async #resolve(store: SecretStoreRecord, refs: EnvStoreRef[]): Promise<Map<EnvStoreRef, ResolvedEnv>> {
    if (store.type === 'vault') {
      const target = {
        config: store.config as VaultConfig,
        credentials: this.#open<VaultCredentials>(store),
        policy: this.#deps.outbound,
        timeoutMs: this.#deps.timeoutMs,
      };
      const values = await readVaultValues(target, refs);
      return new Map(refs.map((ref, i) => [ref, { name: ref.name, value: values[i] as string }]));
    }
    if (store.type === 'eso') {
      const config = store.config as EsoConfig;
      const externalSecret = (ref: EnvStoreRef) => ({
        storeName: config.storeName,
        storeKind: config.storeKind ?? 'ClusterSecretStore',
        refreshInterval: config.refreshInterval ?? '1h',
        path: ref.path,
        key: ref.key,
      });
      return new Map(refs.map((ref) => [ref, { name: ref.name, externalSecret: externalSecret(ref) }]));
    }
    throw new InputError(
      `secret store "${store.name}" is a ${store.type}/${store.provider} store: env.store needs a vault, openbao or eso store`,
    );
  }

  /** The org and the App of a request, after the per-App rate limit. */
  async #begin(request: AppIdentity) {
    if (!this.#deps.fetchLimiter.take(`${request.appNamespace}/${request.appName}`)) {
      throw new RateLimitedError(`too many secret-store fetches for App ${request.appName}: try again shortly`, {
        retry: 'wait',
      });
    }
    const orgId = await orgIdOfNamespace(this.#deps.db, request.appNamespace);
    if (!orgId) throw new NotFoundError(`no organization owns namespace "${request.appNamespace}"`, { retry: 'wait' });
    const app = await this.#deps.kube?.get(request.appNamespace, request.appName);
    if (!app) throw new NotFoundError(`App ${request.appNamespace}/${request.appName} not found`, { retry: 'wait' });
    return { orgId, app };
  }

  #requireUse(
    app: Parameters<typeof usesOfStore>[0],
    store: SecretStoreRecord,
    request: AppIdentity,
    usage: StoreUse['usage'],
  ): void {
    if (!usesOfStore(app, store).some((u) => u.usage === usage)) {
      throw new ForbiddenError(`App ${request.appName} does not use secret store "${store.name}" (${usage})`, {
        retry: 'wait',
      });
    }
  }

  #open<T>(store: SecretStoreRecord): T {
    if (store.sealedCredentials === null) throw new InputError(`secret store "${store.name}" has no credentials`);
    return this.#deps.sealer.openJson<T>(store.sealedCredentials, credentialsContext(store.id));
  }
}
