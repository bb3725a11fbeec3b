/**
 * The cluster use-cases of contract §4.3 (authorize → validate → act → audit): register, list with a live probe,
 * read one, dry-run test, update, remove, and the live namespace list. Kubeconfigs are checked
 * (src/clusters/access.ts), sealed with the one sealing module before they are stored, and never returned or logged.
 * Shell pods live in ./shell-service.ts.
 */
import { randomUUID } from 'node:crypto';
import { canAnywhere, canI } from '../../auth/rbac.ts';
import { type ClusterAccess, checkKubeconfig, checkServerURL, defaultServerOf } from '../../clusters/access.ts';
import { clusterVersion, listNamespaces, probeCluster } from '../../clusters/probe.ts';
import type { AppResource } from '../../core/app-schema.ts';
import {
  ConflictError,
  describeError,
  ForbiddenError,
  InputError,
  NotFoundError,
  UpstreamError,
} from '../../core/errors.ts';
import { dnsLabelProblem, orgNamespace } from '../../core/names.ts';
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
import { inTransaction } from '../../store/transaction.ts';
import type { Actor } from '../actor.ts';
import { requirePermission } from '../context.ts';
import type { ApiServices } from '../services.ts';
import { appsTargeting, deploymentCounts } from './deployments.ts';
import { removeShellObjects } from './shell-janitor.ts';

/** How long one probe request may stay silent (GET /clusters probes every cluster in parallel). */
export const PROBE_TIMEOUT_MS = 5_000;

export interface RegisterInput {
  name: string;
  server_url: string;
  kubeconfig?: string;
  namespaces?: string[];
}

export interface UpdateInput {
  server_url?: string;
  /** New kubeconfig YAML; null switches to the server's own in-cluster credentials. */
  kubeconfig?: string | null;
  namespaces?: string[];
}

export interface TestInput {
  server_url?: string;
  kubeconfig?: string;
}

/** The answer of POST /clusters/test (always 200). */
export type TestResult = { ok: true; version: string; namespaces?: string[] } | { ok: false; error: string };

/** A validated allowlist: DNS-1123 labels, without repeats, in the order given. */
function allowlistOf(list: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const ns of list ?? []) {
    const problem = dnsLabelProblem('namespaces[]', ns);
    if (problem) throw new InputError(problem);
    if (!out.includes(ns)) out.push(ns);
  }
  return out;
}

/** The cluster routes' use-cases. */
export class ClusterService {
  readonly #services: ApiServices;
  readonly #clusters: ClusterStore;
  readonly #shells: ClusterShellStore;

  constructor(services: ApiServices) {
    this.#services = services;
    this.#clusters = new ClusterStore(services.store.db);
    this.#shells = new ClusterShellStore(services.store.db);
  }

  /**
   * The clusters the caller may read (`cluster:read` on each), probed live in parallel unless `shallow`; each probe
   * result (connected or disconnected, with what it found) is stored. 403 when the caller may read no cluster.
   */
  async list(actor: Actor, shallow: boolean): Promise<ClusterRecord[]> {
    if (!canAnywhere(actor.caller, 'cluster:read')) throw new ForbiddenError('missing permission cluster:read');
    const visible = (await this.#clusters.list(actor.org.id)).filter((r) =>
      canI(actor.caller, 'cluster:read', 'cluster', r.name),
    );
    if (shallow || visible.length === 0) return visible;
    const apps = await this.#orgApps(actor);
    return Promise.all(visible.map((r) => this.#probe(r, apps)));
  }

  /** One cluster (`cluster:read` on it), probed unless `shallow`. 404 when not registered. */
  async get(actor: Actor, name: string, shallow: boolean): Promise<ClusterRecord> {
    const record = await this.load(actor, name, 'cluster:read');
    return shallow ? record : this.#probe(record, await this.#orgApps(actor));
  }

  /** The org's cluster `name` once the caller holds `permission` on it; 404 when not registered, else 403. */
  async load(actor: Actor, name: string, permission: string): Promise<ClusterRecord> {
    const record = await this.#clusters.get(actor.org.id, name);
    if (!record) {
      // Whether a name exists is itself information: only callers who may read clusters learn it.
      requirePermission(actor, permission, 'cluster', name);
      throw new NotFoundError(`cluster "${name}" not found`);
    }
    requirePermission(actor, permission, 'cluster', name);
    return record;
  }

  /** Registers a cluster (`cluster:register`): status unknown, no probe; audited `cluster.register`. */
  async register(actor: Actor, input: RegisterInput): Promise<ClusterRecord> {
    requirePermission(actor, 'cluster:register');
    const problem = dnsLabelProblem('name', input.name);
    if (problem) throw new InputError(problem);
    const serverURL = await this.#checkServer(input.server_url);
    const namespaces = allowlistOf(input.namespaces);
    if (input.kubeconfig !== undefined) checkKubeconfig(input.kubeconfig);
    const id = randomUUID();
    const kubeconfig =
      input.kubeconfig === undefined ? null : this.#services.sealer.seal(input.kubeconfig, kubeconfigContext(id));
    return inTransaction(this.#services.store.db, async (tx) => {
      const record = await tx.clusters.insert({
        id,
        orgId: actor.org.id,
        name: input.name,
        serverURL,
        namespaces,
        kubeconfig,
      });
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'cluster.register',
        resourceType: 'cluster',
        resourceId: id,
        resourceName: record.name,
        details: { server_url: serverURL, namespaces, credentials: kubeconfig === null ? 'in-cluster' : 'kubeconfig' },
      });
      return record;
    });
  }

  /**
   * Changes a cluster's server URL, credentials or allowlist (`cluster:manage` on it); audited `cluster.update`
   * (naming the fields changed, never their values). 409 when the new allowlist would leave out the destination of
   * an App. The operator picks new credentials up at its next reconcile (the record's revision moved).
   */
  async update(actor: Actor, name: string, input: UpdateInput): Promise<ClusterRecord> {
    const record = await this.load(actor, name, 'cluster:manage');
    const changes: ClusterChanges = {};
    if (input.server_url !== undefined) changes.serverURL = await this.#checkServer(input.server_url);
    if (input.namespaces !== undefined) {
      const namespaces = allowlistOf(input.namespaces);
      if (namespaces.length > 0) {
        const outside = appsTargeting(await this.#orgApps(actor), name).filter(
          (a) => !namespaces.includes(a.spec.destination.namespace),
        );
        if (outside.length > 0) {
          throw new ConflictError(
            `the allowlist would leave out the destination of ${appList(outside)}; move or delete them first`,
          );
        }
      }
      changes.namespaces = namespaces;
    }
    if (input.kubeconfig !== undefined) {
      if (input.kubeconfig !== null) checkKubeconfig(input.kubeconfig);
      changes.kubeconfig =
        input.kubeconfig === null ? null : this.#services.sealer.seal(input.kubeconfig, kubeconfigContext(record.id));
    }
    const updated = await inTransaction(this.#services.store.db, async (tx) => {
      const next = await tx.clusters.update(actor.org.id, name, changes);
      if (!next) throw new NotFoundError(`cluster "${name}" not found`);
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'cluster.update',
        resourceType: 'cluster',
        resourceId: record.id,
        resourceName: name,
        details: { changed: Object.keys(input).sort(), revision: next.revision },
      });
      return next;
    });
    return updated;
  }

  /**
   * Removes a cluster (`cluster:manage` on it): 409 naming the Apps that deploy there. Its open shells are removed
   * first (best effort: an unreachable cluster keeps them until their deadline ends the Pods). Audited
   * `cluster.remove`.
   */
  async remove(actor: Actor, name: string): Promise<void> {
    const record = await this.load(actor, name, 'cluster:manage');
    const targeting = appsTargeting(await this.#orgApps(actor), name);
    if (targeting.length > 0) {
      throw new ConflictError(`cluster "${name}" is the destination of ${appList(targeting)}; delete them first`);
    }
    for (const shell of await this.#shells.openOf(record.id)) {
      await removeShellObjects(this.#services.clusterConnections.of(record), shell).catch(() => undefined);
      await this.#shells.end(shell.id);
    }
    await inTransaction(this.#services.store.db, async (tx) => {
      if (!(await tx.clusters.remove(actor.org.id, record.id))) throw new NotFoundError(`cluster "${name}" not found`);
      await tx.audit.record({
        orgId: actor.org.id,
        userId: actor.caller.user.id,
        action: 'cluster.remove',
        resourceType: 'cluster',
        resourceId: record.id,
        resourceName: name,
        details: { server_url: record.serverURL },
      });
    });
    this.#services.clusterConnections.forget(record.id);
  }

  /**
   * Dry run of a registration (`cluster:register`): connects with the given settings and reads the version and,
   * when the credentials may, the namespaces. Stores nothing; every outcome is a result (`ok:false` with the reason),
   * audited `cluster.test`.
   */
  async test(actor: Actor, input: TestInput): Promise<TestResult> {
    requirePermission(actor, 'cluster:register');
    let result: TestResult;
    let server = '';
    try {
      if (input.kubeconfig !== undefined) checkKubeconfig(input.kubeconfig);
      server = input.server_url ?? defaultServerOf(input.kubeconfig, this.#services.clusterConnections.options);
      const access: ClusterAccess = {
        name: 'test',
        serverURL: await this.#checkServer(server),
        ...(input.kubeconfig === undefined ? {} : { kubeconfig: input.kubeconfig }),
      };
      const { client } = this.#services.clusterConnections.probe(access);
      try {
        const version = await clusterVersion(client, PROBE_TIMEOUT_MS);
        const namespaces = await listNamespaces(client, PROBE_TIMEOUT_MS);
        result = { ok: true, version, ...(namespaces ? { namespaces } : {}) };
      } finally {
        await client.dropConnections();
      }
    } catch (err) {
      result = { ok: false, error: describeError(err) };
    }
    await this.#services.audit.record({
      orgId: actor.org.id,
      userId: actor.caller.user.id,
      action: 'cluster.test',
      resourceType: 'cluster',
      resourceName: server || '(in-cluster)',
      details: { ok: result.ok, credentials: input.kubeconfig === undefined ? 'in-cluster' : 'kubeconfig' },
    });
    return result;
  }

  /**
   * The cluster's namespaces, live (`cluster:read` on it), limited to its allowlist when it has one. 502 when the
   * credentials may not list namespaces or the cluster answers an error, 503 when it cannot be reached.
   */
  async namespaces(actor: Actor, name: string): Promise<string[]> {
    const record = await this.load(actor, name, 'cluster:read');
    let names: string[] | undefined;
    try {
      names = await listNamespaces(this.#services.clusterConnections.of(record).client, PROBE_TIMEOUT_MS);
    } catch (err) {
      throw toSvcError(err, `cluster "${name}"`);
    }
    if (!names) throw new UpstreamError(`the credentials of cluster "${name}" may not list namespaces`);
    return record.namespaces.length === 0 ? names : names.filter((n) => record.namespaces.includes(n));
  }

  /** Probes one cluster and stores the outcome; the record as it is afterwards. */
  async #probe(record: ClusterRecord, apps: readonly AppResource[]): Promise<ClusterRecord> {
    const counts = deploymentCounts(apps, record.name);
    let result: ProbeRecord;
    try {
      const probe = await probeCluster(this.#services.clusterConnections.of(record).client, PROBE_TIMEOUT_MS);
      result = { status: 'connected', statusMessage: '', ...probe, ...counts, lastSeen: new Date().toISOString() };
    } catch (err) {
      result = { status: 'disconnected', statusMessage: describeError(err), ...counts };
    }
    await this.#clusters.recordProbe(record.id, record.revision, result);
    const { status, statusMessage, lastSeen, ...rest } = result;
    return {
      ...record,
      ...rest,
      status,
      statusMessage,
      ...(lastSeen ? { lastSeen } : {}),
    };
  }

  /** https:// and allowed by the outbound policy, its host name resolved when it resolves (400 otherwise). */
  async #checkServer(value: string): Promise<string> {
    const url = checkServerURL(value, this.#services.config.outbound);
    try {
      await checkOutboundHost(url.hostname, this.#services.config.outbound);
    } catch (err) {
      // A name that does not resolve (yet) is the probe's business; only a refused address is bad input.
      if (err instanceof InputError) throw err;
    }
    return url.toString().replace(/\/$/, '');
  }

  /** The org's Apps (none without a management cluster: no App can exist then). */
  async #orgApps(actor: Actor): Promise<AppResource[]> {
    return this.#services.kube ? this.#services.kube.list(orgNamespace(actor.org.slug)) : [];
  }
}

function appList(apps: readonly AppResource[]): string {
  const names = apps.map((a) => `${a.spec.destination.namespace}/${a.metadata.name}`);
  return `app${names.length === 1 ? '' : 's'} ${names.join(', ')}`;
}
