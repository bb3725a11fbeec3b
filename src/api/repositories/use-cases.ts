/**
 * The repository use-cases (docs/api.md "Repositories"): list, read, references and charts (`repository:read`);
 * create, update, delete and test (`repository:manage`, session only on the REST routes). Each write and its audit
 * entry (`repository.create/update/delete/test`, details naming fields and outcomes, never values) land in one
 * transaction. Credentials are sealed at rest and never returned; a repository Apps use cannot be deleted, nor
 * renamed while Apps name it (409 naming them).
 */
import { join } from 'node:path';
import type { AppResource } from '../../core/app-schema.ts';
import { ConflictError, NotFoundError, UnprocessableError } from '../../core/errors.ts';
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
import type { ApiServices } from '../services.ts';
import { type AuditedTransaction, type UseCaseContext, useCase } from '../use-case.ts';
import { checkRepository, type RepositoryInput } from './input.ts';
import type { RepositoryReference } from './view.ts';

/** A create body. */
export interface CreateRepositoryBody extends RepositoryInput {
  name: string;
}

/** An update body: omitted fields stay; `null` clears an optional field. */
export type UpdateRepositoryBody = { [K in keyof Omit<CreateRepositoryBody, 'type'>]?: CreateRepositoryBody[K] };

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

/** What probing needs, one per server: a Git cache of its own for ls-remote (tests never share the operator's). */
const probes = new WeakMap<ApiServices, ProbeDeps>();

function probeDeps(services: ApiServices): ProbeDeps {
  let deps = probes.get(services);
  if (!deps) {
    const { config, images } = services;
    deps = {
      repos: new RepoCache({ dir: join(config.cacheDir, 'git-test'), guard: gitGuard(config.outbound) }),
      client: images.client,
      policy: config.outbound,
      maxBytes: config.render.maxBytes,
      timeoutMs: Math.min(config.render.timeoutMs, 30_000),
    };
    probes.set(services, deps);
  }
  return deps;
}

const taken = (name: string) => new ConflictError(`a repository named ${name} already exists`);
const notFound = () => new NotFoundError('repository not found');

/** The org's repository `id`; 404 otherwise. */
async function locateRepository(ctx: UseCaseContext, id: string): Promise<RepositoryRecord> {
  const record = await ctx.services.repositories.get(ctx.actor.org.id, id);
  if (!record) throw notFound();
  return record;
}

/** Runs a write and its audit entry in one transaction; a unique-name race becomes 409. */
async function write<T>(
  ctx: UseCaseContext,
  name: string,
  fn: (tx: AuditedTransaction, store: RepositoryStore) => Promise<T>,
): Promise<T> {
  try {
    return await ctx.write((tx) => fn(tx, new RepositoryStore(tx.db, ctx.services.sealer)));
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(name);
    throw err;
  }
}

function audit(tx: AuditedTransaction, action: string, r: RepositoryRecord, details: Record<string, unknown>) {
  return tx.record({ action, resourceType: 'repository', resourceId: r.id, resourceName: r.name, details });
}

/** How `app` uses `record`, if it does: naming it, or (naming none) covered by it as the longest match. */
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

/** The org's Apps whose source uses `record` (from the server's App cache). */
async function referencesOf(ctx: UseCaseContext, record: RepositoryRecord): Promise<RepositoryReference[]> {
  const kube = ctx.services.kube;
  if (!kube) return [];
  const entries = await ctx.services.repositories.entries(ctx.actor.org.id);
  const apps = await kube.listEntries(orgNamespace(ctx.actor.org.slug));
  const refs: RepositoryReference[] = [];
  for (const { app } of apps) {
    const via = usedVia(app, record, entries);
    if (via) refs.push({ app: app.metadata.name, via });
  }
  return refs;
}

function inUse(name: string, refs: RepositoryReference[], what: 'deleted' | 'renamed'): ConflictError {
  return new ConflictError(
    `repository ${name} is used by apps ${refs.map((r) => r.app).join(', ')} and cannot be ${what}`,
  );
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

/** The stored fields of `current` with an update's fields over them (what the merged repository will be). */
function merged(current: RepositoryRecord, stored: SourceAccess['credentials'], body: UpdateRepositoryBody) {
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
  } satisfies RepositoryInput;
}

/** The org's repositories. */
export const listRepositories = useCase({
  permission: 'repository:read',
  where: 'org',
  act: (ctx, _input: undefined) => ctx.services.repositories.list(ctx.actor.org.id),
});

/** One repository. */
export const getRepository = useCase({
  permission: 'repository:read',
  where: 'org',
  locate: locateRepository,
  act: async (_ctx, _id: string, record) => record,
});

/** The Apps of the org that use repository `id`. */
export const repositoryReferences = useCase({
  permission: 'repository:read',
  where: 'org',
  locate: locateRepository,
  act: (ctx, _id: string, record) => referencesOf(ctx, record),
});

/**
 * The charts (and versions) of a Helm repository, named by id or by name (the MCP tool); for OCI, the versions of
 * `chart`. 422 for a Git repository.
 */
export const repositoryCharts = useCase({
  permission: 'repository:read',
  where: 'org',
  locate: async (ctx, input: { id?: string; name?: string; chart?: string | undefined }) => {
    const orgId = ctx.actor.org.id;
    const record =
      input.id !== undefined
        ? await ctx.services.repositories.get(orgId, input.id)
        : await ctx.services.repositories.byName(orgId, input.name ?? '');
    if (!record) throw notFound();
    return record;
  },
  act: async (ctx, input, record): Promise<ChartListing[]> => {
    if (record.type !== 'helm') {
      throw new UnprocessableError(`repository ${record.name} is a git repository, not a Helm one`);
    }
    const access = await ctx.services.repositories.accessById(ctx.actor.org.id, record.id);
    return listCharts(probeDeps(ctx.services), record.url, access, input.chart);
  },
});

/** Registers a repository (status untested); 409 on a taken name. */
export const createRepository = useCase({
  permission: 'repository:manage',
  where: 'org',
  act: async (ctx, body: CreateRepositoryBody) => {
    await checkRepository(body, ctx.services.config);
    if (await ctx.services.repositories.byName(ctx.actor.org.id, body.name)) throw taken(body.name);
    return write(ctx, body.name, async (tx, store) => {
      const c = changesOf(body);
      const created = await store.create({
        orgId: ctx.actor.org.id,
        name: body.name,
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
      await audit(tx, 'repository.create', created, {
        type: created.type,
        url: created.url,
        fields: credentialFields(body),
      });
      return created;
    });
  },
});

/**
 * Changes a repository (omitted fields stay): the merged repository is checked like at create; renaming one Apps
 * name is 409. Audited `repository.update` with the names of the changed fields (never their values).
 */
export const updateRepository = useCase({
  permission: 'repository:manage',
  where: 'org',
  locate: (ctx, input: { id: string; body: UpdateRepositoryBody }) => locateRepository(ctx, input.id),
  act: async (ctx, { id, body }, current) => {
    const orgId = ctx.actor.org.id;
    if (body.name !== undefined && body.name !== current.name) {
      const named = (await referencesOf(ctx, current)).filter((r) => r.via === 'repositoryRef');
      if (named.length > 0) throw inUse(current.name, named, 'renamed');
      if (await ctx.services.repositories.byName(orgId, body.name)) throw taken(body.name);
    }
    const stored = (await ctx.services.repositories.accessById(orgId, id))?.credentials ?? {};
    await checkRepository(merged(current, stored, body), ctx.services.config);
    const changes = changesOf(body);
    const fields = Object.keys(body).filter((k) => body[k as keyof UpdateRepositoryBody] !== undefined);
    return write(ctx, body.name ?? current.name, async (tx, store) => {
      const record = await store.update(orgId, id, changes);
      if (!record) throw notFound();
      await audit(tx, 'repository.update', record, { fields });
      return record;
    });
  },
});

/** Deletes a repository; 409 naming the Apps that use it. Audited `repository.delete`. */
export const deleteRepository = useCase({
  permission: 'repository:manage',
  where: 'org',
  locate: locateRepository,
  act: async (ctx, id: string, current): Promise<RepositoryRecord> => {
    const references = await referencesOf(ctx, current);
    if (references.length > 0) throw inUse(current.name, references, 'deleted');
    await write(ctx, current.name, async (tx, store) => {
      if (!(await store.delete(ctx.actor.org.id, id))) throw notFound();
      await audit(tx, 'repository.delete', current, { type: current.type, url: current.url });
    });
    return current;
  },
});

/** Tests unsaved fields (nothing stored but the audit entry `repository.test`). */
export const testUnsavedRepository = useCase({
  permission: 'repository:manage',
  where: 'org',
  act: async (ctx, body: RepositoryInput): Promise<ProbeResult> => {
    await checkRepository(body, ctx.services.config);
    const result = await probeRepository(probeDeps(ctx.services), body.type, body.url, accessOf(body));
    await ctx.write((tx) =>
      tx.record({
        action: 'repository.test',
        resourceType: 'repository',
        resourceName: body.url,
        details: { saved: false, ...outcome(result) },
      }),
    );
    return result;
  },
});

/** Tests a saved repository and records the result on it (status connected or error). */
export const testSavedRepository = useCase({
  permission: 'repository:manage',
  where: 'org',
  locate: locateRepository,
  act: async (ctx, id: string, record): Promise<ProbeResult> => {
    const access = await ctx.services.repositories.accessById(ctx.actor.org.id, id);
    const result = await probeRepository(probeDeps(ctx.services), record.type, record.url, access);
    await write(ctx, record.name, async (tx, store) => {
      const detail = result.status === 'error' ? result.error : `reachable, ${result.details.found} found`;
      await store.recordTest(ctx.actor.org.id, id, result.status, detail);
      await audit(tx, 'repository.test', record, { saved: true, ...outcome(result) });
    });
    return result;
  },
});
