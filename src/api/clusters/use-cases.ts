/**
 * The cluster use-cases of contract §4.3: register, list with a live probe, read one, dry-run test, update, remove,
 * and the live namespace list (shell pods: ./shell-use-case.ts). Kubeconfigs are checked (src/clusters/access.ts),
 * sealed with the one sealing module before they are stored, and never returned or logged. A cluster's permissions
 * are checked at its cluster scope before anything is read: whether a name exists is itself information.
 */
import { randomUUID } from 'node:crypto';
import { type ClusterAccess, checkKubeconfig, checkServerURL, defaultServerOf } from '../../clusters/access.ts';
import { clusterVersion, listNamespaces, probeCluster } from '../../clusters/probe.ts';
import type { AppResource } from '../../core/app-schema.ts';
import {
  ConflictError,
  describeError,
  InputError,
  NotFoundError,
  UnprocessableError,
  UpstreamError,
} from '../../core/errors.ts';
import { labelKeyProblems, orgNamespace } from '../../core/names.ts';
import type { ScopeRef } from '../../core/permissions.ts';
import { toSvcError } from '../../kube/index.ts';
import { checkOutboundHost } from '../../net/guard.ts';
import { ClusterShellStore } from '../../store/cluster-shells.ts';
import {
  type ClusterChanges,
  type ClusterRecord,
  ClusterStore,
  kubeconfigContext,
  type ProbeRecord,
} from '../../store/clusters.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';
import { appsTargeting, deploymentCounts } from './deployments.ts';
import { removeShellObjects } from './shell-janitor.ts';

/** How long one probe request may stay silent (GET /clusters probes every cluster in parallel). */
export const PROBE_TIMEOUT_MS = 5_000;

export interface RegisterInput {
  name: string;
  server_url: string;
  kubeconfig?: string | undefined;
  namespaces?: string[] | undefined;
  labels?: Record<string, string> | undefined;
}

export interface UpdateInput {
  server_url?: string | undefined;
  /** New kubeconfig YAML; null switches to the server's own in-cluster credentials. */
  kubeconfig?: string | null | undefined;
  namespaces?: string[] | undefined;
  labels?: Record<string, string> | undefined;
}

export interface TestInput {
  server_url?: string | undefined;
  kubeconfig?: string | undefined;
}

/** The answer of POST /clusters/test (always 200). */
export type TestResult = { ok: true; version: string; namespaces?: string[] } | { ok: false; error: string };

/** The cluster scope of a cluster name. */
export const clusterScope = (name: string): ScopeRef => ({ scope: 'cluster', scopeId: name });

const storeOf = (ctx: UseCaseContext) => new ClusterStore(ctx.services.store.db);

/** An allowlist without repeats, in the order given (each a DNS-1123 label: the document says so). */
const allowlistOf = (list: readonly string[] | undefined): string[] => [...new Set(list ?? [])];

/** The org's cluster `name` (its permission already checked at its scope); 404 when not registered. */
export async function locateCluster(ctx: UseCaseContext, name: string): Promise<ClusterRecord> {
  const record = await storeOf(ctx).get(ctx.actor.org.id, name);
  if (!record) throw new NotFoundError(`cluster "${name}" not found`);
  return record;
}

/** A kubeconfig a caller gave, once it can be used: 422 otherwise (its contents are beyond the document). */
function checkGivenKubeconfig(yaml: string): void {
  try {
    checkKubeconfig(yaml);
  } catch (err) {
    if (err instanceof InputError) throw new UnprocessableError(err.message, { cause: err });
    throw err;
  }
}

/** https:// and allowed by the outbound policy, its host name resolved when it resolves (422 otherwise). */
async function checkServer(ctx: UseCaseContext, value: string): Promise<string> {
  const policy = ctx.services.config.outbound;
  let url: URL;
  try {
    url = checkServerURL(value, policy);
  } catch (err) {
    if (err instanceof InputError) throw new UnprocessableError(err.message, { cause: err });
    throw err;
  }
  try {
    await checkOutboundHost(url.hostname, policy);
  } catch (err) {
    // A name that does not resolve (yet) is the probe's business; only a refused address is bad input.
    if (err instanceof InputError) throw err;
  }
  return url.toString().replace(/\/$/, '');
}

/** The org's Apps (none without a management cluster: no App can exist then). */
async function orgApps(ctx: UseCaseContext): Promise<AppResource[]> {
  return ctx.services.kube ? ctx.services.kube.list(orgNamespace(ctx.actor.org.slug)) : [];
}

function appList(apps: readonly AppResource[]): string {
  const names = apps.map((a) => `${a.spec.destination.namespace}/${a.metadata.name}`);
  return `app${names.length === 1 ? '' : 's'} ${names.join(', ')}`;
}

/** Probes one cluster and stores the outcome; the record as it is afterwards. */
async function probe(ctx: UseCaseContext, record: ClusterRecord, apps: readonly AppResource[]): Promise<ClusterRecord> {
  const counts = deploymentCounts(apps, record.name);
  let result: ProbeRecord;
  try {
    const probed = await probeCluster(ctx.services.clusterConnections.of(record).client, PROBE_TIMEOUT_MS);
    result = { status: 'connected', statusMessage: '', ...probed, ...counts, lastSeen: new Date().toISOString() };
  } catch (err) {
    result = { status: 'disconnected', statusMessage: describeError(err), ...counts };
  }
  await storeOf(ctx).recordProbe(record.id, record.revision, result);
  const { status, statusMessage, lastSeen, ...rest } = result;
  return { ...record, ...rest, status, statusMessage, ...(lastSeen ? { lastSeen } : {}) };
}

/**
 * The clusters the caller may read (`cluster:read` on each), probed live in parallel unless `shallow`; each probe
 * result (connected or disconnected, with what it found) is stored.
 */
export const listClusters = useCase({
  permission: 'cluster:read',
  where: 'anywhere',
  act: async (ctx, input: { shallow: boolean }): Promise<ClusterRecord[]> => {
    const visible = (await storeOf(ctx).list(ctx.actor.org.id)).filter((r) =>
      ctx.can('cluster:read', clusterScope(r.name)),
    );
    if (input.shallow || visible.length === 0) return visible;
    const apps = await orgApps(ctx);
    return Promise.all(visible.map((r) => probe(ctx, r, apps)));
  },
});

/** One cluster, probed unless `shallow`. */
export const getCluster = useCase({
  permission: 'cluster:read',
  where: { input: (input: { name: string; shallow: boolean }) => clusterScope(input.name) },
  locate: (ctx, input) => locateCluster(ctx, input.name),
  act: async (ctx, input, record) => (input.shallow ? record : probe(ctx, record, await orgApps(ctx))),
});

/** Registers a cluster: status unknown, no probe; audited `cluster.register`. 409 when the name is taken. */
export const registerCluster = useCase({
  permission: 'cluster:register',
  where: 'org',
  act: async (ctx, input: RegisterInput): Promise<ClusterRecord> => {
    const serverURL = await checkServer(ctx, input.server_url);
    const namespaces = allowlistOf(input.namespaces);
    checkLabels(input.labels);
    if (input.kubeconfig !== undefined) checkGivenKubeconfig(input.kubeconfig);
    const id = randomUUID();
    const kubeconfig =
      input.kubeconfig === undefined ? null : ctx.services.sealer.seal(input.kubeconfig, kubeconfigContext(id));
    return ctx.write(async (tx) => {
      const record = await tx.clusters.insert({
        id,
        orgId: ctx.actor.org.id,
        name: input.name,
        serverURL,
        namespaces,
        labels: input.labels ?? {},
        kubeconfig,
      });
      await tx.record({
        action: 'cluster.register',
        resourceType: 'cluster',
        resourceId: id,
        resourceName: record.name,
        details: {
          server_url: serverURL,
          namespaces,
          labels: input.labels ?? {},
          credentials: kubeconfig === null ? 'in-cluster' : 'kubeconfig',
        },
      });
      return record;
    });
  },
});

/** 422 naming each label key that breaks Kubernetes label syntax; else the labels. */
function checkLabels(labels: Record<string, string> | undefined): Record<string, string> | undefined {
  const problems = labelKeyProblems('labels', labels);
  if (problems.length > 0) throw new UnprocessableError(problems.join('; '));
  return labels;
}

/** 409 when a new allowlist would leave out the destination of an App. */
async function checkAllowlist(ctx: UseCaseContext, name: string, namespaces: string[]): Promise<void> {
  if (namespaces.length === 0) return;
  const outside = appsTargeting(await orgApps(ctx), name).filter(
    (a) => !namespaces.includes(a.spec.destination.namespace),
  );
  if (outside.length > 0) {
    throw new ConflictError(
      `the allowlist would leave out the destination of ${appList(outside)}; move or delete them first`,
    );
  }
}

/**
 * Changes a cluster's server URL, credentials or allowlist; audited `cluster.update` (naming the fields changed,
 * never their values). 409 when the new allowlist would leave out the destination of an App. The operator picks
 * new credentials up at its next reconcile (the record's revision moved).
 */
export const updateCluster = useCase({
  permission: 'cluster:manage',
  where: { input: (input: { name: string; changes: UpdateInput }) => clusterScope(input.name) },
  locate: (ctx, input) => locateCluster(ctx, input.name),
  act: async (ctx, { name, changes: input }, record): Promise<ClusterRecord> => {
    const changes: ClusterChanges = {};
    if (input.server_url !== undefined) changes.serverURL = await checkServer(ctx, input.server_url);
    if (input.namespaces !== undefined) {
      changes.namespaces = allowlistOf(input.namespaces);
      await checkAllowlist(ctx, name, changes.namespaces);
    }
    if (input.labels !== undefined) changes.labels = checkLabels(input.labels);
    if (input.kubeconfig !== undefined) {
      if (input.kubeconfig !== null) checkGivenKubeconfig(input.kubeconfig);
      changes.kubeconfig =
        input.kubeconfig === null ? null : ctx.services.sealer.seal(input.kubeconfig, kubeconfigContext(record.id));
    }
    return ctx.write(async (tx) => {
      const next = await tx.clusters.update(ctx.actor.org.id, name, changes);
      if (!next) throw new NotFoundError(`cluster "${name}" not found`);
      await tx.record({
        action: 'cluster.update',
        resourceType: 'cluster',
        resourceId: record.id,
        resourceName: name,
        details: { changed: Object.keys(input).sort(), revision: next.revision },
      });
      return next;
    });
  },
});

/**
 * Removes a cluster: 409 naming the Apps that deploy there. Its open shells are removed first (best effort: an
 * unreachable cluster keeps them until their deadline ends the Pods). Audited `cluster.remove`.
 */
export const removeCluster = useCase({
  permission: 'cluster:manage',
  where: { input: clusterScope },
  locate: locateCluster,
  act: async (ctx, name: string, record): Promise<void> => {
    const targeting = appsTargeting(await orgApps(ctx), name);
    if (targeting.length > 0) {
      throw new ConflictError(`cluster "${name}" is the destination of ${appList(targeting)}; delete them first`);
    }
    const shells = new ClusterShellStore(ctx.services.store.db);
    for (const shell of await shells.openOf(record.id)) {
      await removeShellObjects(ctx.services.clusterConnections.of(record), shell).catch(() => undefined);
      await shells.end(shell.id);
    }
    await ctx.write(async (tx) => {
      if (!(await tx.clusters.remove(ctx.actor.org.id, record.id)))
        throw new NotFoundError(`cluster "${name}" not found`);
      await tx.record({
        action: 'cluster.remove',
        resourceType: 'cluster',
        resourceId: record.id,
        resourceName: name,
        details: { server_url: record.serverURL },
      });
    });
    ctx.services.clusterConnections.forget(record.id);
  },
});

/** Connects with the given settings and reads the version and, when the credentials may, the namespaces. */
async function tryConnection(ctx: UseCaseContext, input: TestInput): Promise<{ server: string; result: TestResult }> {
  let server = '';
  try {
    if (input.kubeconfig !== undefined) checkKubeconfig(input.kubeconfig);
    server = input.server_url ?? defaultServerOf(input.kubeconfig, ctx.services.clusterConnections.options);
    const access: ClusterAccess = {
      name: 'test',
      serverURL: await checkServer(ctx, server),
      ...(input.kubeconfig === undefined ? {} : { kubeconfig: input.kubeconfig }),
    };
    const { client } = ctx.services.clusterConnections.probe(access);
    try {
      const version = await clusterVersion(client, PROBE_TIMEOUT_MS);
      const namespaces = await listNamespaces(client, PROBE_TIMEOUT_MS);
      return { server, result: { ok: true, version, ...(namespaces ? { namespaces } : {}) } };
    } finally {
      await client.dropConnections();
    }
  } catch (err) {
    return { server, result: { ok: false, error: describeError(err) } };
  }
}

/**
 * Dry run of a registration: connects with the given settings and reads the version and, when the credentials
 * may, the namespaces. Stores nothing; every outcome is a result (`ok:false` with the reason), audited
 * `cluster.test`.
 */
export const testCluster = useCase({
  permission: 'cluster:register',
  where: 'org',
  act: async (ctx, input: TestInput): Promise<TestResult> => {
    const { server, result } = await tryConnection(ctx, input);
    await ctx.audit({
      action: 'cluster.test',
      resourceType: 'cluster',
      resourceName: server || '(in-cluster)',
      details: { ok: result.ok, credentials: input.kubeconfig === undefined ? 'in-cluster' : 'kubeconfig' },
    });
    return result;
  },
});

/**
 * The cluster's namespaces, live, limited to its allowlist when it has one. 502 when the credentials may not list
 * namespaces or the cluster answers an error, 503 when it cannot be reached.
 */
export const clusterNamespaces = useCase({
  permission: 'cluster:read',
  where: { input: clusterScope },
  locate: locateCluster,
  act: async (ctx, name: string, record): Promise<string[]> => {
    let names: string[] | undefined;
    try {
      names = await listNamespaces(ctx.services.clusterConnections.of(record).client, PROBE_TIMEOUT_MS);
    } catch (err) {
      throw toSvcError(err, `cluster "${name}"`);
    }
    if (!names) throw new UpstreamError(`the credentials of cluster "${name}" may not list namespaces`);
    return record.namespaces.length === 0 ? names : names.filter((n) => record.namespaces.includes(n));
  },
});
