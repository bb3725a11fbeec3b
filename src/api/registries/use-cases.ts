/**
 * The registry use-cases (docs/api.md "Registries"; contract §5 rule 4, §6.4): list and read (`registry:read`),
 * create, update, delete and test (`registry:manage`, session only). Each write and its audit entry
 * (`registry.create/update/delete/test`) land in one transaction. Passwords are sealed at rest and never returned;
 * a registry that Apps name in `spec.source.image.registryRef` cannot be deleted or renamed (409 naming them).
 */
import { ConflictError, NotFoundError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { type RegistryEndpoint, RegistryError } from '../../registry/index.ts';
import { isUniqueViolation } from '../../store/database.ts';
import { type RegistryChanges, type RegistryRecord, RegistryStore } from '../../store/registries.ts';
import { type AuditedTransaction, type UseCaseContext, useCase } from '../use-case.ts';
import { type ConnectionInput, checkConnection } from './input.ts';

/** A create body. */
export interface CreateRegistryBody extends ConnectionInput {
  name: string;
}

/** An update body: omitted fields stay; `null` clears ca, username and password. */
export type UpdateRegistryBody = { [K in keyof RegistryChanges]?: RegistryChanges[K] | undefined } & {
  rotate_notification_token?: boolean | undefined;
};

/** The result of a test (the shape of contract §4.4 rule 3). */
export type TestResult =
  | { status: 'connected'; latency: number; details: { host: string; authenticated: boolean } }
  | { status: 'error'; error: string; errorClass: RegistryError['errorClass'] };

const taken = (name: string) => new ConflictError(`a registry named ${name} already exists`);

/** The org's registry `id`; 404 otherwise. */
async function locateRegistry(ctx: UseCaseContext, id: string): Promise<RegistryRecord> {
  const record = await ctx.services.registries.get(ctx.actor.org.id, id);
  if (!record) throw new NotFoundError('registry not found');
  return record;
}

/** Runs a write and its audit entry in one transaction; a unique-name race becomes 409. */
async function write<T>(
  ctx: UseCaseContext,
  name: string,
  fn: (tx: AuditedTransaction, store: RegistryStore) => Promise<T>,
) {
  try {
    return await ctx.write((tx) => fn(tx, new RegistryStore(tx.db, ctx.services.sealer)));
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(name);
    throw err;
  }
}

function audit(tx: AuditedTransaction, action: string, r: RegistryRecord, details: Record<string, unknown>) {
  return tx.record({ action, resourceType: 'registry', resourceId: r.id, resourceName: r.name, details });
}

/** Apps of the org naming registry `name` (from the server's App cache), by name. */
async function appsUsing(ctx: UseCaseContext, name: string): Promise<string[]> {
  const kube = ctx.services.kube;
  if (!kube) return [];
  const entries = await kube.listEntries(orgNamespace(ctx.actor.org.slug));
  return entries.filter((e) => e.app.spec.source.image?.registryRef === name).map((e) => e.app.metadata.name);
}

async function refuseInUse(ctx: UseCaseContext, name: string, what: 'deleted' | 'renamed'): Promise<void> {
  const apps = await appsUsing(ctx, name);
  if (apps.length > 0)
    throw new ConflictError(`registry ${name} is used by apps ${apps.join(', ')} and cannot be ${what}`);
}

async function probe(ctx: UseCaseContext, endpoint: RegistryEndpoint): Promise<TestResult> {
  const started = performance.now();
  try {
    await ctx.services.images.client.ping(endpoint);
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

function outcome(result: TestResult): Record<string, unknown> {
  return result.status === 'connected'
    ? { status: result.status }
    : { status: result.status, error_class: result.errorClass };
}

/** The org's registries. */
export const listRegistries = useCase({
  permission: 'registry:read',
  where: 'org',
  act: (ctx, _input: undefined) => ctx.services.registries.list(ctx.actor.org.id),
});

/** One registry. */
export const getRegistry = useCase({
  permission: 'registry:read',
  where: 'org',
  locate: locateRegistry,
  act: async (_ctx, _id: string, record) => record,
});

/** Registers a registry (status untested); 409 on a taken name. Returns it with its notification token. */
export const createRegistry = useCase({
  permission: 'registry:manage',
  where: 'org',
  act: async (ctx, body: CreateRegistryBody) => {
    const endpoint = await checkConnection(body, ctx.services.config);
    if (await ctx.services.registries.byName(ctx.actor.org.id, body.name)) throw taken(body.name);
    return write(ctx, body.name, async (tx, store) => {
      const created = await store.create({
        orgId: ctx.actor.org.id,
        name: body.name,
        host: endpoint.host,
        insecure: endpoint.insecure === true,
        ca: endpoint.ca ?? null,
        username: endpoint.credentials?.username ?? null,
        password: endpoint.credentials?.password ?? null,
      });
      await audit(tx, 'registry.create', created.record, { host: endpoint.host });
      return created;
    });
  },
});

/**
 * Changes a registry (omitted fields stay): the merged connection is checked like at create; renaming a registry
 * Apps name is 409; `rotate_notification_token` returns a new token (once). Audited `registry.update` with the
 * names of the changed fields (never their values).
 */
export const updateRegistry = useCase({
  permission: 'registry:manage',
  where: 'org',
  locate: (ctx, input: { id: string; body: UpdateRegistryBody }) => locateRegistry(ctx, input.id),
  act: async (ctx, { id, body }, current) => {
    const orgId = ctx.actor.org.id;
    if (body.name !== undefined && body.name !== current.name) {
      await refuseInUse(ctx, current.name, 'renamed');
      if (await ctx.services.registries.byName(orgId, body.name)) throw taken(body.name);
    }
    const stored = await ctx.services.registries.endpointById(orgId, id);
    await checkConnection(
      {
        host: body.host ?? current.host,
        insecure: body.insecure ?? current.insecure,
        ca: body.ca === undefined ? current.ca : body.ca,
        username: body.username === undefined ? current.username : body.username,
        password: body.password === undefined ? (stored?.credentials?.password ?? null) : body.password,
      },
      ctx.services.config,
    );
    const { rotate_notification_token: rotate, ...given } = body;
    const changes = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as RegistryChanges;
    const changed = Object.keys(changes);
    return write(ctx, body.name ?? current.name, async (tx, store) => {
      const record = await store.update(orgId, id, changes);
      if (!record) throw new NotFoundError('registry not found');
      const notificationToken = rotate ? await store.rotateNotificationToken(orgId, id) : undefined;
      const fields = rotate ? [...changed, 'notification_token'] : changed;
      await audit(tx, 'registry.update', record, { fields });
      return { record, ...(notificationToken ? { notificationToken } : {}) };
    });
  },
});

/** Deletes a registry; 409 naming the Apps that use it. Audited `registry.delete`. */
export const deleteRegistry = useCase({
  permission: 'registry:manage',
  where: 'org',
  locate: locateRegistry,
  act: async (ctx, id: string, current): Promise<RegistryRecord> => {
    await refuseInUse(ctx, current.name, 'deleted');
    await write(ctx, current.name, async (tx, store) => {
      if (!(await store.delete(ctx.actor.org.id, id))) throw new NotFoundError('registry not found');
      await audit(tx, 'registry.delete', current, { host: current.host });
    });
    return current;
  },
});

/** Tests unsaved connection fields (nothing stored but the audit entry `registry.test`). */
export const testUnsavedRegistry = useCase({
  permission: 'registry:manage',
  where: 'org',
  act: async (ctx, body: ConnectionInput): Promise<TestResult> => {
    const endpoint = await checkConnection(body, ctx.services.config);
    const result = await probe(ctx, endpoint);
    await ctx.write((tx) =>
      tx.record({
        action: 'registry.test',
        resourceType: 'registry',
        resourceName: endpoint.host,
        details: { saved: false, ...outcome(result) },
      }),
    );
    return result;
  },
});

/** Tests a saved registry and records the result on it (status connected or error). */
export const testSavedRegistry = useCase({
  permission: 'registry:manage',
  where: 'org',
  locate: locateRegistry,
  act: async (ctx, id: string, record): Promise<TestResult> => {
    const endpoint = await ctx.services.registries.endpointById(ctx.actor.org.id, id);
    const result = await probe(ctx, endpoint ?? { host: record.host });
    await write(ctx, record.name, async (tx, store) => {
      const detail = result.status === 'error' ? result.error : 'API answered, credentials accepted';
      await store.recordTest(ctx.actor.org.id, id, result.status, detail);
      await audit(tx, 'registry.test', record, { saved: true, ...outcome(result) });
    });
    return result;
  },
});
