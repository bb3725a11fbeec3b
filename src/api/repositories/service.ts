/**
 * The repository use-cases (docs/api.md "Repositories"): list, read, references and charts (`repository:read`);
 * create, update, delete and test (`repository:manage`, session only). Each write and its audit entry
 * (`repository.create/update/delete/test`, details naming fields and outcomes, never values) land in one
 * transaction. Credentials are sealed at rest and never returned; a repository Apps use cannot be deleted, nor
 * renamed while Apps name it (409 naming them).
 */
import { join } from 'node:path';
import type { AppResource } from '../../core/app-schema.ts';
import { ConflictError, InputError, NotFoundError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { matchRepository, type RepositoryEntry, repositoryTypeOf, type SourceAccess } from '../../core/repository.ts';
import { gitGuard } from '../../engine/sources/index.ts';
import {
  type ChartListing,
  listCharts,
  type ProbeDeps,
  type ProbeResult,
  probeRepository,
} from '../../engine/sources/probe.ts';
import { RepoCache } from '../../git/index.ts';
import { isUniqueViolation } from '../../store/database.ts';
import { type RepositoryChanges, type RepositoryRecord, RepositoryStore } from '../../store/repositories.ts';
import { inTransaction, type TransactionStores } from '../../store/transaction.ts';
import type { Actor } from '../actor.ts';
import { requirePermission } from '../context.ts';
import type { ApiServices } from '../services.ts';
import { checkRepository, checkRepositoryName, type RepositoryInput } from './input.ts';
import type { RepositoryReference } from './view.ts';

/** A create body. */
export interface CreateRepositoryBody extends RepositoryInput {
  name: string;
}

/** An update body: omitted fields stay; `null` clears an optional field. */
export type UpdateRepositoryBody = Partial<Omit<CreateRepositoryBody, 'type'>>;

/** The store's fields of a body (snake_case in, camelCase to the store). */
function changesOf(body: UpdateRepositoryBody): RepositoryChanges {
  const map: [keyof UpdateRepositoryBody, keyof RepositoryChanges][] = [
    ['name', 'name'],
    ['url', 'url'],
    ['insecure', 'insecure'],
    ['username', 'username'],
    ['password', 'password'],
    ['ssh_private_key', 'sshPrivateKey'],
    ['known_hosts', 'knownHosts'],
    ['ca', 'ca'],
    ['tls_client_cert', 'tlsClientCert'],
    ['tls_client_key', 'tlsClientKey'],
  ];
  const changes: Record<string, unknown> = {};
  for (const [from, to] of map) if (body[from] !== undefined) changes[to] = body[from];
  return changes as RepositoryChanges;
}

/** The access a body's credentials give (for an unsaved test). */
function accessOf(body: RepositoryInput): SourceAccess {
  const c = {
    username: body.username,
    password: body.password,
    sshPrivateKey: body.ssh_private_key,
    knownHosts: body.known_hosts,
    ca: body.ca,
    tlsClientCert: body.tls_client_cert,
    tlsClientKey: body.tls_client_key,
  };
  const credentials = Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined && v !== null));
  return { repository: 'unsaved', credentials, ...(body.insecure ? { insecure: true } : {}) };
}

/** The repository use-cases of one server. */
export class RepositoryService {
  readonly #services: ApiServices;
  #probe: ProbeDeps | undefined;

  constructor(services: ApiServices) {
    this.#services = services;
  }

  /** The org's repositories (`repository:read`). */
  async list(actor: Actor): Promise<RepositoryRecord[]> {
    requirePermission(actor, 'repository:read');
    return this.#services.repositories.list(actor.org.id);
  }

  /** One repository (`repository:read`); 404 when the org has none with that id. */
  async get(actor: Actor, id: string): Promise<RepositoryRecord> {
    requirePermission(actor, 'repository:read');
    return found(await this.#services.repositories.get(actor.org.id, id));
  }

  /** The Apps of the org that use repository `id` (`repository:read`). */
  async references(actor: Actor, id: string): Promise<RepositoryReference[]> {
    requirePermission(actor, 'repository:read');
    const record = found(await this.#services.repositories.get(actor.org.id, id));
    return this.#referencesOf(actor, record);
  }

  /** The charts (and versions) of a Helm repository (`repository:read`); for OCI, the versions of `chart`. */
  async charts(actor: Actor, id: string, chart?: string): Promise<ChartListing[]> {
    requirePermission(actor, 'repository:read');
    const record = found(await this.#services.repositories.get(actor.org.id, id));
    if (record.type !== 'helm') throw new InputError(`repository ${record.name} is a git repository, not a Helm one`);
    const access = await this.#services.repositories.accessById(actor.org.id, id);
    return listCharts(this.#probeDeps(), record.url, access, chart);
  }

  /** Registers a repository (status untested); 409 on a taken name. */
  async create(actor: Actor, body: CreateRepositoryBody): Promise<RepositoryRecord> {
    requirePermission(actor, 'repository:manage');
    const name = checkRepositoryName(body.name);
    await checkRepository(body, this.#services.config);
    if (await this.#services.repositories.byName(actor.org.id, name)) throw taken(name);
    return this.#write(async (tx) => {
      const c = changesOf(body);
      const created = await this.#store(tx).create({
        orgId: actor.org.id,
        name,
        type: body.type,
        url: body.url,
        insecure: body.insecure === true,
        username: c.username ?? null,
        password: c.password ?? null,
        sshPrivateKey: c.sshPrivateKey ?? null,
        knownHosts: c.knownHosts ?? null,
        ca: c.ca ?? null,
        tlsClientCert: c.tlsClientCert ?? null,
        tlsClientKey: c.tlsClientKey ?? null,
      });
      await this.#audit(tx, actor, 'repository.create', created, {
        type: created.type,
        url: created.url,
        fields: credentialFields(body),
      });
      return created;
    }, name);
  }

  /**
   * Changes a repository (omitted fields stay): a new name or URL is checked like at create; renaming one Apps name
   * is 409. Audited `repository.update` with the names of the changed fields (never their values).
   */
  async update(actor: Actor, id: string, body: UpdateRepositoryBody): Promise<RepositoryRecord> {
    requirePermission(actor, 'repository:manage');
    const current = found(await this.#services.repositories.get(actor.org.id, id));
    if (body.name !== undefined && body.name !== current.name) {
      checkRepositoryName(body.name);
      const named = (await this.#referencesOf(actor, current)).filter((r) => r.via === 'repositoryRef');
      if (named.length > 0) throw inUse(current.name, named, 'renamed');
      if (await this.#services.repositories.byName(actor.org.id, body.name)) throw taken(body.name);
    }
    const stored = (await this.#services.repositories.accessById(actor.org.id, id))?.credentials ?? {};
    await checkRepository(this.#merged(current, stored, body), this.#services.config);
    const changes = changesOf(body);
    const fields = Object.keys(body).filter((k) => body[k as keyof UpdateRepositoryBody] !== undefined);
    if (fields.length === 0) throw new InputError('nothing to update');
    return this.#write(async (tx) => {
      const record = found(await this.#store(tx).update(actor.org.id, id, changes));
      await this.#audit(tx, actor, 'repository.update', record, { fields });
      return record;
    }, body.name ?? current.name);
  }

  /** Deletes a repository; 409 naming the Apps that use it. Audited `repository.delete`. */
  async delete(actor: Actor, id: string): Promise<RepositoryRecord> {
    requirePermission(actor, 'repository:manage');
    const current = found(await this.#services.repositories.get(actor.org.id, id));
    const references = await this.#referencesOf(actor, current);
    if (references.length > 0) throw inUse(current.name, references, 'deleted');
    await inTransaction(this.#services.store.db, async (tx) => {
      if (!(await this.#store(tx).delete(actor.org.id, id))) throw notFound();
      await this.#audit(tx, actor, 'repository.delete', current, { type: current.type, url: current.url });
    });
    return current;
  }

  /** Tests unsaved fields (nothing stored but the audit entry `repository.test`). */
  async testUnsaved(actor: Actor, body: RepositoryInput): Promise<ProbeResult> {
    requirePermission(actor, 'repository:manage');
    await checkRepository(body, this.#services.config);
    const result = await probeRepository(this.#probeDeps(), body.type, body.url, accessOf(body));
    await inTransaction(this.#services.store.db, (tx) =>
      tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'repository.test',
        resourceType: 'repository',
        resourceName: body.url,
        details: { saved: false, ...outcome(result) },
      }),
    );
    return result;
  }

  /** Tests a saved repository and records the result on it. */
  async testSaved(actor: Actor, id: string): Promise<ProbeResult> {
    requirePermission(actor, 'repository:manage');
    const record = found(await this.#services.repositories.get(actor.org.id, id));
    const access = await this.#services.repositories.accessById(actor.org.id, id);
    const result = await probeRepository(this.#probeDeps(), record.type, record.url, access);
    await inTransaction(this.#services.store.db, async (tx) => {
      const detail = result.status === 'error' ? result.error : `reachable, ${result.details.found} found`;
      await this.#store(tx).recordTest(actor.org.id, id, result.status, detail);
      await this.#audit(tx, actor, 'repository.test', record, { saved: true, ...outcome(result) });
    });
    return result;
  }

  /** The org's Apps whose source uses `record`: naming it, or (naming none) covered by it as the longest match. */
  async #referencesOf(actor: Actor, record: RepositoryRecord): Promise<RepositoryReference[]> {
    const kube = this.#services.kube;
    if (!kube) return [];
    const entries = await this.#services.repositories.entries(actor.org.id);
    const apps = await kube.listEntries(orgNamespace(actor.org.slug));
    const refs: RepositoryReference[] = [];
    for (const { app } of apps) {
      const via = usedVia(app, record, entries);
      if (via) refs.push({ app: app.metadata.name, via });
    }
    return refs;
  }

  #merged(current: RepositoryRecord, stored: SourceAccess['credentials'], body: UpdateRepositoryBody): RepositoryInput {
    const pick = <T>(next: T | null | undefined, kept: T | undefined | null) => (next === undefined ? kept : next);
    return {
      type: current.type,
      url: body.url ?? current.url,
      insecure: body.insecure ?? current.insecure,
      username: pick(body.username, current.username),
      password: pick(body.password, stored.password),
      ssh_private_key: pick(body.ssh_private_key, stored.sshPrivateKey),
      known_hosts: pick(body.known_hosts, current.knownHosts),
      ca: pick(body.ca, current.ca),
      tls_client_cert: pick(body.tls_client_cert, current.tlsClientCert),
      tls_client_key: pick(body.tls_client_key, stored.tlsClientKey),
    };
  }

  #probeDeps(): ProbeDeps {
    const { config, images } = this.#services;
    this.#probe ??= {
      repos: new RepoCache({ dir: join(config.cacheDir, 'git-test'), guard: gitGuard(config.outbound) }),
      client: images.client,
      policy: config.outbound,
      maxBytes: config.render.maxBytes,
      timeoutMs: Math.min(config.render.timeoutMs, 30_000),
    };
    return this.#probe;
  }

  #store(tx: TransactionStores): RepositoryStore {
    return new RepositoryStore(tx.db, this.#services.sealer);
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

  #audit(tx: TransactionStores, actor: Actor, action: string, r: RepositoryRecord, details: Record<string, unknown>) {
    return tx.audit.record({
      orgId: actor.org.id,
      userId: actor.caller.user.id,
      action,
      resourceType: 'repository',
      resourceId: r.id,
      resourceName: r.name,
      details,
    });
  }
}

/** How `app` uses `record`, if it does (see RepositoryService.#referencesOf). */
function usedVia(
  app: AppResource,
  record: RepositoryRecord,
  entries: RepositoryEntry[],
): RepositoryReference['via'] | undefined {
  const source = app.spec.source;
  const type = repositoryTypeOf(source.type);
  const block = source.type === 'Git' ? source.git : source.type === 'HelmChart' ? source.helmChart : undefined;
  if (!block || type !== record.type) return undefined;
  if (block.repositoryRef !== undefined) return block.repositoryRef === record.name ? 'repositoryRef' : undefined;
  return matchRepository(entries, type, block.repoURL)?.name === record.name ? 'url' : undefined;
}

/** The names of the credential fields a body sets (audit details name fields, never values). */
function credentialFields(body: RepositoryInput): string[] {
  const fields = ['username', 'password', 'ssh_private_key', 'known_hosts', 'ca', 'tls_client_cert', 'tls_client_key'];
  return fields.filter(
    (f) => body[f as keyof RepositoryInput] !== undefined && body[f as keyof RepositoryInput] !== null,
  );
}

function outcome(result: ProbeResult): Record<string, unknown> {
  return result.status === 'connected'
    ? { status: result.status }
    : { status: result.status, error_class: result.errorClass };
}

function found<T>(value: T | undefined): T {
  if (value === undefined) throw notFound();
  return value;
}

function inUse(name: string, refs: RepositoryReference[], what: 'deleted' | 'renamed'): ConflictError {
  return new ConflictError(
    `repository ${name} is used by apps ${refs.map((r) => r.app).join(', ')} and cannot be ${what}`,
  );
}

function taken(name: string): ConflictError {
  return new ConflictError(`a repository named ${name} already exists`);
}

function notFound(): NotFoundError {
  return new NotFoundError('repository not found');
}
