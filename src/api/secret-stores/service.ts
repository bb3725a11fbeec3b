/**
 * What the secret-store use-cases (./use-cases.ts, contract §4.4) do once authorized: list, read, references,
 * create, patch, delete, test an unsaved store, re-test a saved one. Each validates (the provider catalogue's
 * schemas, the outbound policy) → acts → audits in the same transaction (`secretstore.create/update/delete/test`).
 * Credentials are sealed before they are stored and never leave this module: views carry none. One instance per
 * server: it holds the test rate limiter.
 */
import { randomBytes } from 'node:crypto';
import { ConflictError, InputError, NotFoundError, RateLimitedError, UnprocessableError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { OutboundRefusedError } from '../../net/errors.ts';
import { checkOutboundHost, checkOutboundURL, type OutboundPolicy } from '../../net/outbound.ts';
import type { RateLimiter } from '../../net/rate-limit.ts';
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
import type { Store } from '../../store/database.ts';
import { credentialsContext, type SecretStoreRecord, SecretStoreStore } from '../../store/secret-stores.ts';
import type { KubeApps } from '../kube/apps-repo.ts';
import type { UseCaseContext } from '../use-case.ts';
import type { CreateStoreBody, PatchStoreBody, TestStoreBody } from './contract.ts';
import { type ReferenceView, type StoreView, storeView } from './view.ts';

/** Prefix of store ids (contract §2.7). */
export const STORE_ID_PREFIX = 'sts_';

/** What the service needs (from the server's ApiServices: `storesOf` in ./use-cases.ts). */
export interface SecretStoreDeps {
  store: Store;
  sealer: Sealer;
  outbound: OutboundPolicy;
  /** Timeout of each call to a store. */
  timeoutMs: number;
  /** Undefined without a management cluster: there are then no Apps, so no references. */
  kube: KubeApps | undefined;
  /** Tests per user (contract §8: rate-limited per user). */
  testLimiter: RateLimiter;
}

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
  providers(_ctx: UseCaseContext) {
    return PROVIDERS.map((p) => ({
      type: p.type,
      provider: p.provider,
      description: p.description,
      testable: p.testable,
      // JSON Schemas, served as the objects they are.
      config: p.config as unknown as Record<string, unknown>,
      credentials: p.credentials as unknown as Record<string, unknown>,
    }));
  }

  /** The org's stores with their reference counts (`secretstore:read`). */
  async list(ctx: UseCaseContext): Promise<StoreView[]> {
    const [records, apps] = await Promise.all([this.#rows.list(ctx.actor.org.id), this.#apps(ctx)]);
    return records.map((r) => storeView(r, this.#referencesIn(apps, r).length));
  }

  /** One store (`secretstore:read`); 404 when the org has none with this id. */
  async get(ctx: UseCaseContext, id: string): Promise<StoreView> {
    const record = await this.#load(ctx, id);
    return storeView(record, this.#referencesIn(await this.#apps(ctx), record).length);
  }

  /** The Apps using a store (`secretstore:read`). */
  async references(ctx: UseCaseContext, id: string): Promise<ReferenceView[]> {
    const record = await this.#load(ctx, id);
    return this.#referencesIn(await this.#apps(ctx), record);
  }

  /** Creates a store, status untested (`secretstore:manage`); 400 invalid, 409 duplicate name; audited. */
  async create(ctx: UseCaseContext, body: CreateStoreBody): Promise<StoreView> {
    const checked = await this.#check(body.type, body.provider, body.config ?? {}, body.credentials ?? {});
    const id = `${STORE_ID_PREFIX}${randomBytes(12).toString('hex')}`;
    const now = new Date().toISOString();
    const record: SecretStoreRecord = {
      id,
      orgId: ctx.actor.org.id,
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
    await ctx.write(async (tx) => {
      await tx.secretStores.insert(record);
      await tx.record({
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
  async update(ctx: UseCaseContext, id: string, body: PatchStoreBody): Promise<StoreView> {
    const current = await this.#load(ctx, id);
    const changed = (['name', 'config', 'credentials'] as const).filter((f) => body[f] !== undefined);
    const next: SecretStoreRecord = { ...current };
    const apps = await this.#apps(ctx);
    if (body.name !== undefined && body.name !== current.name) {
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
    await ctx.write(async (tx) => {
      if (!(await tx.secretStores.update(next))) throw new NotFoundError(`secret store ${id} not found`);
      await tx.record({
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
  async delete(ctx: UseCaseContext, id: string): Promise<void> {
    const record = await this.#load(ctx, id);
    const refs = this.#referencesIn(await this.#apps(ctx), record);
    if (refs.length > 0) {
      throw new ConflictError(`secret store "${record.name}" is used by ${appList(refs)}: remove those uses first`);
    }
    await ctx.write(async (tx) => {
      if (!(await tx.secretStores.delete(ctx.actor.org.id, id)))
        throw new NotFoundError(`secret store ${id} not found`);
      await tx.record({
        action: 'secretstore.delete',
        resourceType: 'secretstore',
        resourceId: id,
        resourceName: record.name,
        details: { type: record.type, provider: record.provider },
      });
    });
  }

  /** Tests a store that is not saved (`secretstore:manage`, rate-limited per user); audited. */
  async testUnsaved(ctx: UseCaseContext, body: TestStoreBody): Promise<TestOutcome> {
    this.#takeTest(ctx);
    const checked = await this.#check(body.type, body.provider, body.config ?? {}, body.credentials ?? {});
    const outcome = await testStore(checked, this.#testContext());
    await ctx.audit({
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
  async testSaved(ctx: UseCaseContext, id: string): Promise<TestOutcome> {
    this.#takeTest(ctx);
    const record = await this.#load(ctx, id);
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
          ctx,
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
        ctx,
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
        ctx,
        record,
        { status: 'error', statusDetail: outcome.error, lastTestedAt: now },
        { status: 'error', errorClass: outcome.errorClass },
      );
    } else {
      await this.#recordTest(ctx, record, undefined, { status: 'untested' });
    }
    return outcome;
  }

  async #recordTest(
    ctx: UseCaseContext,
    record: SecretStoreRecord,
    result:
      | { status: string; statusDetail: string; lastTestedAt?: string; credentialsExpireAt?: string | null }
      | undefined,
    details: { status: string; errorClass?: StoreErrorClass | 'refused' },
  ): Promise<void> {
    await ctx.write(async (tx) => {
      if (result) {
        await tx.secretStores.recordTest(ctx.actor.org.id, record.id, {
          lastTestedAt: new Date().toISOString(),
          ...result,
        });
      }
      await tx.record({
        action: 'secretstore.test',
        resourceType: 'secretstore',
        resourceId: record.id,
        resourceName: record.name,
        details: { saved: true, provider: record.provider, ...details },
      });
    });
  }

  #takeTest(ctx: UseCaseContext): void {
    if (!this.#deps.testLimiter.take(`test:${ctx.actor.caller.user.id}`)) {
      throw new RateLimitedError('too many secret-store tests: try again in a minute');
    }
  }

  #testContext() {
    return { policy: this.#deps.outbound, timeoutMs: this.#deps.timeoutMs };
  }

  async #load(ctx: UseCaseContext, id: string): Promise<SecretStoreRecord> {
    const record = await this.#rows.get(ctx.actor.org.id, id);
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
    try {
      const definition = providerOf(type, provider);
      const config = structuredClone(configIn);
      const credentials = structuredClone(credentialsIn);
      validateFields(definition.config, config, 'config');
      validateFields(definition.credentials, credentials, 'credentials');
      if (definition.type === 'vault') await this.#checkAddress(String(config['address']));
      if (definition.type === 'sops') {
        // Loaded on first use: the age library is about 20 MiB of the server's resident memory (issue 29).
        const { ageRecipientOf } = await import('../../secrets/age.ts');
        config['recipient'] = await ageRecipientOf(String(credentials['privateKey']));
      }
      return { definition, config, credentials };
    } catch (err) {
      // The document states each provider's fields (a create or test body is refused before this, 400); what fails
      // here is beyond it: a patch merged with the stored fields, an address the outbound policy refuses, a key whose
      // checksum is wrong. 422.
      if (err instanceof InputError && !(err instanceof UnprocessableError)) {
        throw new UnprocessableError(err.message, { cause: err });
      }
      throw err;
    }
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

  async #apps(ctx: UseCaseContext) {
    if (!this.#deps.kube) return [];
    return this.#deps.kube.listEntries(orgNamespace(ctx.actor.org.slug));
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
