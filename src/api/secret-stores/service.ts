/**
 * The secret-store use-cases of the API (contract §4.4): list, read, references, create, patch, delete, test an
 * unsaved store, re-test a saved one. Each is authorize (canI: `secretstore:read`, or `secretstore:manage`, which
 * API keys never hold) → validate (the provider catalogue's schemas, the outbound policy) → act → audit in the same
 * transaction (`secretstore.create/update/delete/test`). Credentials are sealed before they are stored and never
 * leave this module: views carry none.
 */
import { randomBytes } from 'node:crypto';
import { ConflictError, InputError, NotFoundError, RateLimitedError } from '../../core/errors.ts';
import { dnsLabelProblem, orgNamespace } from '../../core/names.ts';
import { OutboundRefusedError } from '../../net/errors.ts';
import { checkOutboundHost, checkOutboundURL, type OutboundPolicy } from '../../net/outbound.ts';
import type { RateLimiter } from '../../net/rate-limit.ts';
import { ageRecipientOf } from '../../secrets/age.ts';
import {
  PROVIDERS,
  type ProviderDefinition,
  providerOf,
  type StoreErrorClass,
  validateFields,
} from '../../secrets/providers.ts';
import { usesOfStore } from '../../secrets/references.ts';
import type { Sealer } from '../../secrets/seal.ts';
import { type TestOutcome, testStore } from '../../secrets/tester.ts';
import type { AuditStore } from '../../store/audit.ts';
import type { Store } from '../../store/database.ts';
import { credentialsContext, type SecretStoreRecord, SecretStoreStore } from '../../store/secret-stores.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { Actor } from '../actor.ts';
import { requirePermission } from '../context.ts';
import type { KubeApps } from '../kube/apps-repo.ts';
import { type ReferenceView, type StoreView, storeView } from './view.ts';

/** Prefix of store ids (contract §2.7). */
export const STORE_ID_PREFIX = 'sts_';

/** What the service needs. */
export interface SecretStoreDeps {
  store: Store;
  audit: AuditStore;
  sealer: Sealer;
  outbound: OutboundPolicy;
  /** Timeout of each call to a store. */
  timeoutMs: number;
  /** Undefined without a management cluster: there are then no Apps, so no references. */
  kube: KubeApps | undefined;
  /** Tests per user (contract §8: rate-limited per user). */
  testLimiter: RateLimiter;
}

/** Body of POST /secret-stores (validated here beyond the route's shape check). */
export interface CreateStoreBody {
  name: string;
  type: string;
  provider: string;
  config?: Record<string, unknown>;
  credentials?: Record<string, unknown>;
}

/** Body of PATCH /secret-stores/{id}: each field omitted stays unchanged. */
export interface PatchStoreBody {
  name?: string;
  /** Merged over the stored config: a field given replaces, `null` removes it (back to its default). */
  config?: Record<string, unknown>;
  /** Replaces the stored credentials as a whole. */
  credentials?: Record<string, unknown>;
}

/** Body of POST /secret-stores/test. */
export type TestStoreBody = Omit<CreateStoreBody, 'name'> & { name?: string };

/** A validated store: provider, config with defaults (and derived fields), credentials. */
interface CheckedStore {
  definition: ProviderDefinition;
  config: Record<string, unknown>;
  credentials: Record<string, unknown>;
}

export class SecretStoreService {
  readonly #deps: SecretStoreDeps;
  readonly #rows: SecretStoreStore;

  constructor(deps: SecretStoreDeps) {
    this.#deps = deps;
    this.#rows = new SecretStoreStore(deps.store.db);
  }

  /** Every registered type/provider with its config and credential JSON Schemas (`secretstore:read`). */
  providers(actor: Actor) {
    requirePermission(actor, 'secretstore:read');
    return PROVIDERS.map((p) => ({
      type: p.type,
      provider: p.provider,
      description: p.description,
      testable: p.testable,
      config: p.config,
      credentials: p.credentials,
    }));
  }

  /** The org's stores with their reference counts (`secretstore:read`). */
  async list(actor: Actor): Promise<StoreView[]> {
    requirePermission(actor, 'secretstore:read');
    const [records, apps] = await Promise.all([this.#rows.list(actor.org.id), this.#apps(actor)]);
    return records.map((r) => storeView(r, this.#referencesIn(apps, r).length));
  }

  /** One store (`secretstore:read`); 404 when the org has none with this id. */
  async get(actor: Actor, id: string): Promise<StoreView> {
    requirePermission(actor, 'secretstore:read');
    const record = await this.#load(actor, id);
    return storeView(record, this.#referencesIn(await this.#apps(actor), record).length);
  }

  /** The Apps using a store (`secretstore:read`). */
  async references(actor: Actor, id: string): Promise<ReferenceView[]> {
    requirePermission(actor, 'secretstore:read');
    const record = await this.#load(actor, id);
    return this.#referencesIn(await this.#apps(actor), record);
  }

  /** Creates a store, status untested (`secretstore:manage`); 400 invalid, 409 duplicate name; audited. */
  async create(actor: Actor, body: CreateStoreBody): Promise<StoreView> {
    requirePermission(actor, 'secretstore:manage');
    const nameProblem = dnsLabelProblem('name', body.name);
    if (nameProblem) throw new InputError(nameProblem);
    const checked = await this.#check(body.type, body.provider, body.config ?? {}, body.credentials ?? {});
    const id = `${STORE_ID_PREFIX}${randomBytes(12).toString('hex')}`;
    const now = new Date().toISOString();
    const record: SecretStoreRecord = {
      id,
      orgId: actor.org.id,
      name: body.name,
      type: checked.definition.type,
      provider: checked.definition.provider,
      config: checked.config,
      sealedCredentials: this.#seal(id, checked.credentials),
      status: 'untested',
      statusDetail: '',
      lastTestedAt: null,
      credentialsExpireAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await inTransaction(this.#deps.store.db, async (tx) => {
      await tx.secretStores.insert(record);
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'secretstore.create',
        resourceType: 'secretstore',
        resourceId: id,
        resourceName: record.name,
        details: { type: record.type, provider: record.provider },
      });
    });
    return storeView(record, 0);
  }

  /**
   * Updates name, config (merged) and credentials (replaced) of a store (`secretstore:manage`); omitted fields stay.
   * A changed config or credentials makes the store untested again. 409 for a taken name, or a rename while Apps
   * name the store (decryption.storeRef); audited with the names of the changed fields.
   */
  async update(actor: Actor, id: string, body: PatchStoreBody): Promise<StoreView> {
    requirePermission(actor, 'secretstore:manage');
    const current = await this.#load(actor, id);
    const changed = (['name', 'config', 'credentials'] as const).filter((f) => body[f] !== undefined);
    const next: SecretStoreRecord = { ...current };
    const apps = await this.#apps(actor);
    if (body.name !== undefined && body.name !== current.name) {
      const nameProblem = dnsLabelProblem('name', body.name);
      if (nameProblem) throw new InputError(nameProblem);
      const byName = this.#referencesIn(apps, current).filter((r) => r.usage === 'decryption');
      if (byName.length > 0) {
        throw new ConflictError(
          `secret store "${current.name}" is named by ${appList(byName)} (decryption.storeRef): change them first`,
        );
      }
      next.name = body.name;
    }
    if (body.config !== undefined || body.credentials !== undefined) {
      const config = { ...current.config, ...body.config };
      for (const [k, v] of Object.entries(config)) if (v === null) delete config[k];
      const credentials = body.credentials ?? this.#open(current);
      // Derived fields are recomputed from the credentials, never taken from the caller.
      delete config['recipient'];
      const checked = await this.#check(current.type, current.provider, config, credentials);
      next.config = checked.config;
      next.sealedCredentials = this.#seal(id, checked.credentials);
      next.status = 'untested';
      next.statusDetail = '';
      if (body.credentials !== undefined) next.credentialsExpireAt = null;
    }
    next.updatedAt = new Date().toISOString();
    await inTransaction(this.#deps.store.db, async (tx) => {
      if (!(await tx.secretStores.update(next))) throw new NotFoundError(`secret store ${id} not found`);
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'secretstore.update',
        resourceType: 'secretstore',
        resourceId: id,
        resourceName: next.name,
        details: { fields: changed, ...(next.name !== current.name ? { previous_name: current.name } : {}) },
      });
    });
    return storeView(next, this.#referencesIn(apps, next).length);
  }

  /** Deletes a store (`secretstore:manage`); 409 while Apps use it; audited. */
  async delete(actor: Actor, id: string): Promise<void> {
    requirePermission(actor, 'secretstore:manage');
    const record = await this.#load(actor, id);
    const refs = this.#referencesIn(await this.#apps(actor), record);
    if (refs.length > 0) {
      throw new ConflictError(`secret store "${record.name}" is used by ${appList(refs)}: remove those uses first`);
    }
    await inTransaction(this.#deps.store.db, async (tx) => {
      if (!(await tx.secretStores.delete(actor.org.id, id))) throw new NotFoundError(`secret store ${id} not found`);
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'secretstore.delete',
        resourceType: 'secretstore',
        resourceId: id,
        resourceName: record.name,
        details: { type: record.type, provider: record.provider },
      });
    });
  }

  /** Tests a store that is not saved (`secretstore:manage`, rate-limited per user); audited. */
  async testUnsaved(actor: Actor, body: TestStoreBody): Promise<TestOutcome> {
    requirePermission(actor, 'secretstore:manage');
    this.#takeTest(actor);
    const checked = await this.#check(body.type, body.provider, body.config ?? {}, body.credentials ?? {});
    const outcome = await testStore(checked, this.#testContext());
    await this.#deps.audit.record({
      orgId: actor.org.id,
      userId: actor.caller.user.id,
      action: 'secretstore.test',
      resourceType: 'secretstore',
      resourceName: body.name ?? '(unsaved)',
      details: testDetails(checked.definition, outcome, false),
    });
    return outcome;
  }

  /**
   * Re-tests a saved store (`secretstore:manage`, rate-limited per user): its status becomes connected or error
   * (lastTestedAt now; credentialsExpireAt from the token's TTL on success); eso stays untested. Audited.
   */
  async testSaved(actor: Actor, id: string): Promise<TestOutcome> {
    requirePermission(actor, 'secretstore:manage');
    this.#takeTest(actor);
    const record = await this.#load(actor, id);
    const definition = providerOf(record.type, record.provider);
    let outcome: TestOutcome;
    try {
      outcome = await testStore(
        { definition, config: record.config, credentials: this.#open(record) },
        this.#testContext(),
      );
    } catch (err) {
      // The address became refused (e.g. it now resolves to loopback): the store does not work; say why, then 400.
      if (err instanceof OutboundRefusedError) {
        await this.#recordTest(
          actor,
          record,
          { status: 'error', statusDetail: err.message },
          {
            status: 'error',
            errorClass: 'refused',
          },
        );
      }
      throw err;
    }
    const now = new Date().toISOString();
    if (outcome.status === 'connected') {
      await this.#recordTest(
        actor,
        record,
        {
          status: 'connected',
          statusDetail: connectedDetail(outcome.details),
          lastTestedAt: now,
          credentialsExpireAt: outcome.credentialsExpireAt,
        },
        { status: 'connected' },
      );
    } else if (outcome.status === 'error') {
      await this.#recordTest(
        actor,
        record,
        { status: 'error', statusDetail: outcome.error, lastTestedAt: now },
        { status: 'error', errorClass: outcome.errorClass },
      );
    } else {
      await this.#recordTest(actor, record, undefined, { status: 'untested' });
    }
    return outcome;
  }

  async #recordTest(
    actor: Actor,
    record: SecretStoreRecord,
    result:
      | { status: string; statusDetail: string; lastTestedAt?: string; credentialsExpireAt?: string | null }
      | undefined,
    details: { status: string; errorClass?: StoreErrorClass | 'refused' },
  ): Promise<void> {
    await inTransaction(this.#deps.store.db, async (tx) => {
      if (result) {
        await tx.secretStores.recordTest(actor.org.id, record.id, {
          lastTestedAt: new Date().toISOString(),
          ...result,
        });
      }
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'secretstore.test',
        resourceType: 'secretstore',
        resourceId: record.id,
        resourceName: record.name,
        details: { saved: true, provider: record.provider, ...details },
      });
    });
  }

  #takeTest(actor: Actor): void {
    if (!this.#deps.testLimiter.take(`test:${actor.caller.user.id}`)) {
      throw new RateLimitedError('too many secret-store tests: try again in a minute');
    }
  }

  #testContext() {
    return { policy: this.#deps.outbound, timeoutMs: this.#deps.timeoutMs };
  }

  async #load(actor: Actor, id: string): Promise<SecretStoreRecord> {
    const record = await this.#rows.get(actor.org.id, id);
    if (!record) throw new NotFoundError(`secret store ${id} not found`);
    return record;
  }

  /** Validates type/provider, config and credentials; checks a store address against the outbound policy. */
  async #check(
    type: string,
    provider: string,
    configIn: Record<string, unknown>,
    credentialsIn: Record<string, unknown>,
  ): Promise<CheckedStore> {
    const definition = providerOf(type, provider);
    const config = structuredClone(configIn);
    const credentials = structuredClone(credentialsIn);
    validateFields(definition.config, config, 'config');
    validateFields(definition.credentials, credentials, 'credentials');
    if (definition.type === 'vault') await this.#checkAddress(String(config['address']));
    if (definition.type === 'sops') config['recipient'] = await ageRecipientOf(String(credentials['privateKey']));
    return { definition, config, credentials };
  }

  /**
   * The SSRF rule at create, patch and test time (contract §4.4 rule 2): the scheme (https in production), no
   * userinfo, and every address the host resolves to must pass the outbound policy. A host that does not resolve
   * now is accepted (the store's Test reports `dns`); connections check again by themselves.
   */
  async #checkAddress(address: string): Promise<void> {
    const named = (err: unknown) =>
      err instanceof OutboundRefusedError ? new OutboundRefusedError(`config.address: ${err.message}`) : err;
    let url: URL;
    try {
      url = checkOutboundURL(address, this.#deps.outbound);
    } catch (err) {
      throw named(err);
    }
    try {
      await checkOutboundHost(url.hostname, this.#deps.outbound);
    } catch (err) {
      if (err instanceof OutboundRefusedError) throw named(err);
    }
  }

  #seal(id: string, credentials: Record<string, unknown>): string | null {
    return Object.keys(credentials).length === 0
      ? null
      : this.#deps.sealer.sealJson(credentials, credentialsContext(id));
  }

  #open(record: SecretStoreRecord): Record<string, unknown> {
    return record.sealedCredentials === null
      ? {}
      : this.#deps.sealer.openJson<Record<string, unknown>>(record.sealedCredentials, credentialsContext(record.id));
  }

  async #apps(actor: Actor) {
    if (!this.#deps.kube) return [];
    return this.#deps.kube.listEntries(orgNamespace(actor.org.slug));
  }

  #referencesIn(
    entries: readonly { app: Parameters<typeof usesOfStore>[0] }[],
    record: SecretStoreRecord,
  ): ReferenceView[] {
    const out: ReferenceView[] = [];
    for (const { app } of entries) {
      for (const use of usesOfStore(app, record)) {
        out.push({
          name: app.metadata.name,
          namespace: app.spec.destination.namespace,
          cluster: app.spec.destination.cluster ?? '',
          usage: use.usage,
          ...(use.env ? { env: use.env } : {}),
        });
      }
    }
    return out;
  }
}

/** "Apps a/web, b/api" for messages (at most five named). */
function appList(refs: readonly ReferenceView[]): string {
  const names = [...new Set(refs.map((r) => `${r.namespace}/${r.name}`))];
  const shown = names.slice(0, 5).join(', ');
  return `${names.length === 1 ? 'App' : `${names.length} Apps:`} ${shown}${names.length > 5 ? ', …' : ''}`;
}

/** statusDetail of a connected store: what the test established, in a sentence (no credential). */
function connectedDetail(details: Record<string, unknown>): string {
  if (details['roundTrip'] === true) return `age round trip succeeded (recipient ${String(details['recipient'])})`;
  const ttl = details['ttlSeconds'];
  const method = String(details['method'] ?? 'token');
  return `authenticated (${method}${typeof ttl === 'number' ? `, token TTL ${ttl} s` : ', token does not expire'})`;
}

/** What the audit entry of a test says: provider and outcome, never the details' values. */
function testDetails(definition: ProviderDefinition, outcome: TestOutcome, saved: boolean) {
  return {
    saved,
    type: definition.type,
    provider: definition.provider,
    status: outcome.status,
    ...(outcome.status === 'error' ? { errorClass: outcome.errorClass } : {}),
  };
}
