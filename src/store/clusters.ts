/**
 * Registered clusters (contract §2.6), one row per org and name. The kubeconfig column holds only sealed text
 * (`enc:v1:`, sealed by the caller with src/secrets/seal.ts); this module never sees a plaintext credential.
 * `revision` grows with every change of how the cluster is reached (server URL, credentials, allowlist), which is
 * what the operator compares to know whether its cached connection is still current.
 */
import type { Kysely } from 'kysely';
import { ConflictError } from '../core/errors.ts';
import type { DeliveryWindow } from '../core/windows.ts';
import type { ClusterTable, Tables } from './database.ts';

/** The stored status of a cluster: unknown until probed. */
/** The sealing context of a cluster's kubeconfig (AAD: a sealed value opens only in its own row and field). */
export const kubeconfigContext = (clusterId: string): string => `cluster:${clusterId}:kubeconfig`;

export type ClusterStatus = 'connected' | 'disconnected' | 'unknown';

/** A cluster row as svc uses it. */
export interface ClusterRecord {
  id: string;
  orgId: string;
  name: string;
  serverURL: string;
  /** The namespace allowlist; empty = cluster-wide. */
  namespaces: string[];
  /** Labels (AppSets' clusters generator selects on them). */
  labels: Record<string, string>;
  /** Delivery windows of Apps deploying here (src/core/windows.ts). */
  windows: DeliveryWindow[];
  /** Sealed kubeconfig, or null for the server's own in-cluster credentials. */
  kubeconfig: string | null;
  revision: number;
  status: ClusterStatus;
  /** Why the last probe failed ('' when it succeeded or none ran). */
  statusMessage: string;
  version: string;
  provider: string;
  region: string;
  nodeCount: number;
  cpuUsage: number;
  memoryUsage: number;
  deploymentCount: number;
  healthyDeployments: number;
  lastSeen: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What a probe found, stored as the cluster's latest known state (what it could not see stays as it was). */
export interface ProbeRecord
  extends Pick<ClusterRecord, 'statusMessage' | 'deploymentCount' | 'healthyDeployments'>,
    Partial<Pick<ClusterRecord, 'version' | 'provider' | 'region' | 'nodeCount' | 'cpuUsage' | 'memoryUsage'>> {
  status: 'connected' | 'disconnected';
  /** Set when connected. */
  lastSeen?: string;
}

/** What a registration stores. */
export interface NewCluster {
  id: string;
  orgId: string;
  name: string;
  serverURL: string;
  namespaces: string[];
  labels?: Record<string, string>;
  kubeconfig: string | null;
}

/** What an update may change; undefined fields keep their value (kubeconfig null = in-cluster credentials). */
export interface ClusterChanges {
  serverURL?: string;
  namespaces?: string[];
  labels?: Record<string, string>;
  kubeconfig?: string | null;
}

const joinNamespaces = (list: readonly string[]) => list.join(',');
const splitNamespaces = (text: string) => (text === '' ? [] : text.split(','));

/** Stored labels as an object ({} for a value that is not an object of strings: never written by svc). */
function parseLabels(text: string): Record<string, string> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/** Stored windows as a list ([] for text that is not a JSON array: never written by svc). */
export function parseWindows(text: string | null | undefined): DeliveryWindow[] {
  try {
    const value: unknown = JSON.parse(text ?? '[]');
    return Array.isArray(value) ? (value as DeliveryWindow[]) : [];
  } catch {
    return [];
  }
}

function toRecord(r: ClusterTable): ClusterRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    serverURL: r.server_url,
    namespaces: splitNamespaces(r.namespaces),
    labels: parseLabels(r.labels),
    windows: parseWindows(r.windows),
    kubeconfig: r.kubeconfig,
    revision: Number(r.revision),
    status: (['connected', 'disconnected'].includes(r.status) ? r.status : 'unknown') as ClusterStatus,
    statusMessage: r.status_message,
    version: r.version,
    provider: r.provider,
    region: r.region,
    nodeCount: Number(r.node_count),
    cpuUsage: Number(r.cpu_usage),
    memoryUsage: Number(r.memory_usage),
    deploymentCount: Number(r.deployment_count),
    healthyDeployments: Number(r.healthy_deployments),
    lastSeen: r.last_seen,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Cluster persistence, always within one org. */
export class ClusterStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Stores a new cluster with status unknown; ConflictError (409) when the org already has one of that name. */
  async insert(input: NewCluster, now = new Date()): Promise<ClusterRecord> {
    if (await this.get(input.orgId, input.name)) throw duplicate(input.name);
    const at = now.toISOString();
    const row: ClusterTable = {
      id: input.id,
      org_id: input.orgId,
      name: input.name,
      server_url: input.serverURL,
      namespaces: joinNamespaces(input.namespaces),
      labels: JSON.stringify(input.labels ?? {}),
      windows: '[]',
      kubeconfig: input.kubeconfig,
      revision: 1,
      status: 'unknown',
      status_message: '',
      version: '',
      provider: '',
      region: '',
      node_count: 0,
      cpu_usage: 0,
      memory_usage: 0,
      deployment_count: 0,
      healthy_deployments: 0,
      last_seen: null,
      created_at: at,
      updated_at: at,
    };
    try {
      await this.#db.insertInto('cluster').values(row).execute();
    } catch (err) {
      // Two registrations racing past the check above: the unique constraint decides; the loser gets the 409.
      if (await this.get(input.orgId, input.name)) throw duplicate(input.name);
      throw err;
    }
    return toRecord(row);
  }

  /** The org's clusters, by name. */
  async list(orgId: string): Promise<ClusterRecord[]> {
    const rows = await this.#db.selectFrom('cluster').selectAll().where('org_id', '=', orgId).orderBy('name').execute();
    return rows.map(toRecord);
  }

  /** The org's cluster `name`, if registered. */
  async get(orgId: string, name: string): Promise<ClusterRecord | undefined> {
    const row = await this.#db
      .selectFrom('cluster')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** The cluster with id `id` (any org), for the shell janitor. */
  async byId(id: string): Promise<ClusterRecord | undefined> {
    const row = await this.#db.selectFrom('cluster').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** Applies `changes` and bumps the revision; undefined when the cluster does not exist. */
  async update(
    orgId: string,
    name: string,
    changes: ClusterChanges,
    now = new Date(),
  ): Promise<ClusterRecord | undefined> {
    const current = await this.get(orgId, name);
    if (!current) return undefined;
    const set: Partial<ClusterTable> = { revision: current.revision + 1, updated_at: now.toISOString() };
    if (changes.serverURL !== undefined) set.server_url = changes.serverURL;
    if (changes.namespaces !== undefined) set.namespaces = joinNamespaces(changes.namespaces);
    if (changes.labels !== undefined) set.labels = JSON.stringify(changes.labels);
    if (changes.kubeconfig !== undefined) set.kubeconfig = changes.kubeconfig;
    // A connection-relevant change makes the last probe's verdict stale.
    if (changes.serverURL !== undefined || changes.kubeconfig !== undefined) {
      Object.assign(set, { status: 'unknown', status_message: '' });
    }
    await this.#db
      .updateTable('cluster')
      .set(set)
      .where('id', '=', current.id)
      .where('revision', '=', current.revision)
      .execute();
    const updated = await this.get(orgId, name);
    if (updated?.revision !== current.revision + 1) {
      throw new ConflictError(`cluster "${name}" was changed by another request at the same time; try again`);
    }
    return updated;
  }

  /**
   * Sets the cluster's delivery windows (validated by the caller); false when the cluster does not exist. Not a
   * change of how the cluster is reached: the revision stays.
   */
  async setWindows(
    orgId: string,
    name: string,
    windows: readonly DeliveryWindow[],
    now = new Date(),
  ): Promise<boolean> {
    const res = await this.#db
      .updateTable('cluster')
      .set({ windows: JSON.stringify(windows), updated_at: now.toISOString() })
      .where('org_id', '=', orgId)
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Deletes the cluster; false when it did not exist. */
  async remove(orgId: string, id: string): Promise<boolean> {
    const res = await this.#db
      .deleteFrom('cluster')
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /**
   * Stores what a probe of revision `revision` found. A probe that raced an update (the revision moved) is not
   * stored: it tested the old credentials.
   */
  async recordProbe(id: string, revision: number, probe: ProbeRecord): Promise<void> {
    const set: Partial<ClusterTable> = {
      status: probe.status,
      status_message: probe.statusMessage,
      deployment_count: probe.deploymentCount,
      healthy_deployments: probe.healthyDeployments,
    };
    if (probe.version !== undefined) set.version = probe.version;
    if (probe.provider !== undefined) set.provider = probe.provider;
    if (probe.region !== undefined) set.region = probe.region;
    if (probe.nodeCount !== undefined) set.node_count = probe.nodeCount;
    if (probe.cpuUsage !== undefined) set.cpu_usage = probe.cpuUsage;
    if (probe.memoryUsage !== undefined) set.memory_usage = probe.memoryUsage;
    if (probe.lastSeen !== undefined) set.last_seen = probe.lastSeen;
    await this.#db.updateTable('cluster').set(set).where('id', '=', id).where('revision', '=', revision).execute();
  }
}

function duplicate(name: string): ConflictError {
  return new ConflictError(`a cluster named "${name}" is already registered in this organization`);
}
