/**
 * The registry use-cases (docs/api.md "Registries"; contract §5 rule 4, §6.4): list and read (`registry:read`),
 * create, update, delete and test (`registry:manage`, session only). Each write and its audit entry
 * (`registry.create/update/delete/test`) land in one transaction. Passwords are sealed at rest and never returned;
 * a registry that Apps name in `spec.source.image.registryRef` cannot be deleted or renamed (409 naming them).
 */
import { ConflictError, InputError, NotFoundError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { RegistryError } from '../../registry/index.ts';
import { isUniqueViolation } from '../../store/database.ts';
import { type RegistryChanges, type RegistryRecord, RegistryStore } from '../../store/registries.ts';
import { inTransaction, type TransactionStores } from '../../store/transaction.ts';
import type { Actor } from '../actor.ts';
import { requirePermission } from '../context.ts';
import type { ApiServices } from '../services.ts';
import { type ConnectionInput, checkConnection, checkRegistryName } from './input.ts';

/** A create body. */
export interface CreateRegistryBody extends ConnectionInput {
  name: string;
}

/** An update body: omitted fields stay; `null` clears ca, username and password. */
export type UpdateRegistryBody = RegistryChanges & { rotate_notification_token?: boolean };

/** The result of a test (the shape of contract §4.4 rule 3). */
export type TestResult =
  | { status: 'connected'; latency: number; details: { host: string; authenticated: boolean } }
  | { status: 'error'; error: string; errorClass: string };

/** The registry use-cases of one server. */
export class RegistryService {
  readonly #services: ApiServices;

  constructor(services: ApiServices) {
    this.#services = services;
  }

  /** The org's registries (`registry:read`). */
  async list(actor: Actor): Promise<RegistryRecord[]> {
    requirePermission(actor, 'registry:read');
    return this.#services.registries.list(actor.org.id);
  }

  /** One registry (`registry:read`); 404 when the org has none with that id. */
  async get(actor: Actor, id: string): Promise<RegistryRecord> {
    requirePermission(actor, 'registry:read');
    return this.#found(await this.#services.registries.get(actor.org.id, id));
  }

  /** Registers a registry (status untested); 409 on a taken name. Returns it with its notification token. */
  async create(actor: Actor, body: CreateRegistryBody) {
    requirePermission(actor, 'registry:manage');
    const name = checkRegistryName(body.name);
    const endpoint = await checkConnection(body, this.#services.config);
    if (await this.#services.registries.byName(actor.org.id, name)) throw taken(name);
    return this.#write(async (tx) => {
      const created = await this.#store(tx).create({
        orgId: actor.org.id,
        name,
        host: endpoint.host,
        insecure: endpoint.insecure === true,
        ca: endpoint.ca ?? null,
        username: endpoint.credentials?.username ?? null,
        password: endpoint.credentials?.password ?? null,
      });
      await this.#audit(tx, actor, 'registry.create', created.record, { host: endpoint.host });
      return created;
    }, name);
  }

  /**
   * Changes a registry (omitted fields stay): a new name or host is checked like at create; renaming a registry
   * Apps name is 409; `rotate_notification_token` returns a new token (once). Audited `registry.update` with the
   * names of the changed fields (never their values).
   */
  async update(actor: Actor, id: string, body: UpdateRegistryBody) {
    requirePermission(actor, 'registry:manage');
    const current = this.#found(await this.#services.registries.get(actor.org.id, id));
    if (body.name !== undefined && body.name !== current.name) {
      checkRegistryName(body.name);
      await this.#refuseInUse(actor, current.name, 'renamed');
      if (await this.#services.registries.byName(actor.org.id, body.name)) throw taken(body.name);
    }
    const stored = await this.#services.registries.endpointById(actor.org.id, id);
    const merged: ConnectionInput = {
      host: body.host ?? current.host,
      insecure: body.insecure ?? current.insecure,
      ca: body.ca === undefined ? current.ca : body.ca,
      username: body.username === undefined ? current.username : body.username,
      password: body.password === undefined ? (stored?.credentials?.password ?? null) : body.password,
    };
    await checkConnection(merged, this.#services.config);
    const { rotate_notification_token: rotate, ...changes } = body;
    const changed = Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined);
    if (changed.length === 0 && !rotate) throw new InputError('nothing to update');
    return this.#write(async (tx) => {
      const store = this.#store(tx);
      const record = this.#found(await store.update(actor.org.id, id, changes));
      const notificationToken = rotate ? await store.rotateNotificationToken(actor.org.id, id) : undefined;
      const fields = rotate ? [...changed, 'notification_token'] : changed;
      await this.#audit(tx, actor, 'registry.update', record, { fields });
      return { record, ...(notificationToken ? { notificationToken } : {}) };
    }, body.name ?? current.name);
  }

  /** Deletes a registry; 409 naming the Apps that use it. Audited `registry.delete`. */
  async delete(actor: Actor, id: string): Promise<RegistryRecord> {
    requirePermission(actor, 'registry:manage');
    const current = this.#found(await this.#services.registries.get(actor.org.id, id));
    await this.#refuseInUse(actor, current.name, 'deleted');
    await inTransaction(this.#services.store.db, async (tx) => {
      if (!(await this.#store(tx).delete(actor.org.id, id))) throw notFound();
      await this.#audit(tx, actor, 'registry.delete', current, { host: current.host });
    });
    return current;
  }

  /** Tests unsaved connection fields (nothing stored but the audit entry `registry.test`). */
  async testUnsaved(actor: Actor, body: ConnectionInput): Promise<TestResult> {
    requirePermission(actor, 'registry:manage');
    const endpoint = await checkConnection(body, this.#services.config);
    const result = await this.#probe(endpoint);
    await inTransaction(this.#services.store.db, (tx) =>
      tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'registry.test',
        resourceType: 'registry',
        resourceName: endpoint.host,
        details: { saved: false, ...outcome(result) },
      }),
    );
    return result;
  }

  /** Tests a saved registry and records the result on it (status connected or error). */
  async testSaved(actor: Actor, id: string): Promise<TestResult> {
    requirePermission(actor, 'registry:manage');
    const record = this.#found(await this.#services.registries.get(actor.org.id, id));
    const endpoint = await this.#services.registries.endpointById(actor.org.id, id);
    const result = await this.#probe(endpoint ?? { host: record.host });
    await inTransaction(this.#services.store.db, async (tx) => {
      const detail = result.status === 'error' ? result.error : 'API answered, credentials accepted';
      await this.#store(tx).recordTest(actor.org.id, id, result.status, detail);
      await this.#audit(tx, actor, 'registry.test', record, { saved: true, ...outcome(result) });
    });
    return result;
  }

  /** Apps of the org naming registry `name` (from the server's App cache), by name. */
  async appsUsing(actor: Actor, name: string): Promise<string[]> {
    const kube = this.#services.kube;
    if (!kube) return [];
    const entries = await kube.listEntries(orgNamespace(actor.org.slug));
    return entries.filter((e) => e.app.spec.source.image?.registryRef === name).map((e) => e.app.metadata.name);
  }

  async #refuseInUse(actor: Actor, name: string, what: 'deleted' | 'renamed'): Promise<void> {
    const apps = await this.appsUsing(actor, name);
    if (apps.length > 0) {
      throw new ConflictError(`registry ${name} is used by apps ${apps.join(', ')} and cannot be ${what}`);
    }
  }

  async #probe(endpoint: Parameters<OrgClient['ping']>[0]): Promise<TestResult> {
    const started = performance.now();
    try {
      await this.#services.images.client.ping(endpoint);
      return {
        status: 'connected',
        latency: Math.round(performance.now() - started),
        details: { host: endpoint.host, authenticated: endpoint.credentials !== undefined },
      };
    } catch (err) {
      if (!(err instanceof RegistryError)) throw err;
      return { status: 'error', error: err.message, errorClass: err.errorClass };
    }
  }

  #store(tx: TransactionStores): RegistryStore {
    return new RegistryStore(tx.db, this.#services.sealer);
  }

  /** Runs a write and its audit entry in one transaction; a unique-name race becomes 409. */
  async #write<T>(fn: (tx: TransactionStores) => Promise<T>, name: string): Promise<T> {
    try {
      return await inTransaction(this.#services.store.db, fn);
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(name);
      throw err;
    }
  }

  #audit(tx: TransactionStores, actor: Actor, action: string, r: RegistryRecord, details: Record<string, unknown>) {
    return tx.audit.record({
      orgId: actor.org.id,
      userId: actor.caller.user.id,
      action,
      resourceType: 'registry',
      resourceId: r.id,
      resourceName: r.name,
      details,
    });
  }

  #found<T>(value: T | undefined): T {
    if (value === undefined) throw notFound();
    return value;
  }
}

type OrgClient = ApiServices['images']['client'];

function outcome(result: TestResult): Record<string, unknown> {
  return result.status === 'connected'
    ? { status: result.status }
    : { status: result.status, error_class: result.errorClass };
}

function taken(name: string): ConflictError {
  return new ConflictError(`a registry named ${name} already exists`);
}

function notFound(): NotFoundError {
  return new NotFoundError('registry not found');
}
