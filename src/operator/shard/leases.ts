/** The shard Leases of one operator group: one coordination.k8s.io/v1 Lease per replica, found by a label. */
import { createHash } from 'node:crypto';
import { isNotFound, type KubeClient, microTime } from '../../kube/index.ts';

/** Label naming the group of a replica's shard Lease (its value: the group, e.g. `svc-operator`). */
export const SHARD_GROUP_LABEL = 'cd.svc.space/operator-shard-group';
/** Annotation: the id of the membership this replica has acknowledged (it reconciles nothing outside it). */
export const SHARD_ACK_ANNOTATION = 'cd.svc.space/shard-membership';
/** Annotation: how many Apps this replica owns (its share, for `kubectl get lease -o yaml`). */
export const SHARD_APPS_ANNOTATION = 'cd.svc.space/shard-apps';

/** A shard Lease as read from the API. */
export interface ShardLease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string };
}

/** Reads and writes one group's shard Leases. */
export class ShardLeases {
  readonly #client: KubeClient;
  readonly #namespace: string;
  readonly #group: string;
  readonly #timeoutMs: number;

  constructor(client: KubeClient, namespace: string, group: string, timeoutMs: number) {
    this.#client = client;
    this.#namespace = namespace;
    this.#group = group;
    this.#timeoutMs = timeoutMs;
  }

  /** The Lease name of `identity`: the group and a hash (an identity need not be a valid object name). */
  nameOf(identity: string): string {
    return `${this.#group}-shard-${createHash('sha256').update(identity).digest('hex').slice(0, 12)}`;
  }

  #path(name?: string): string {
    const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.#namespace)}/leases`;
    return name ? `${base}/${encodeURIComponent(name)}` : base;
  }

  /** Every Lease of the group. */
  async list(): Promise<ShardLease[]> {
    const res = await this.#client.request<{ items?: ShardLease[] }>(this.#path(), {
      query: { labelSelector: `${SHARD_GROUP_LABEL}=${this.#group}` },
      timeoutMs: this.#timeoutMs,
    });
    return res.items ?? [];
  }

  /**
   * Renews `identity`'s Lease (creating it when missing) with the acknowledged membership and share. The replica is
   * the only writer of its Lease; the resourceVersion read still guards the write.
   */
  async renew(identity: string, seconds: number, ack: string, apps: number): Promise<void> {
    const name = this.nameOf(identity);
    const annotations = { [SHARD_ACK_ANNOTATION]: ack, [SHARD_APPS_ANNOTATION]: String(apps) };
    const current = await this.#client
      .request<ShardLease>(this.#path(name), { timeoutMs: this.#timeoutMs })
      .catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
    const now = microTime();
    const lease: ShardLease = current ?? {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: this.#namespace, labels: { [SHARD_GROUP_LABEL]: this.#group } },
      spec: { acquireTime: now },
    };
    lease.metadata.annotations = { ...lease.metadata.annotations, ...annotations };
    lease.spec = { ...lease.spec, holderIdentity: identity, leaseDurationSeconds: seconds, renewTime: now };
    await this.#client.request(this.#path(current ? name : undefined), {
      method: current ? 'PUT' : 'POST',
      body: lease,
      timeoutMs: this.#timeoutMs,
    });
  }

  /** Deletes `identity`'s Lease (a clean stop: the others see the membership change at once). */
  async release(identity: string): Promise<void> {
    await this.#client
      .request(this.#path(this.nameOf(identity)), { method: 'DELETE', timeoutMs: this.#timeoutMs })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }

  /** Deletes a Lease long expired, only if it has not changed since it was read (a replica gone for good). */
  async remove(lease: ShardLease): Promise<void> {
    await this.#client
      .request(this.#path(lease.metadata.name), {
        method: 'DELETE',
        body: { preconditions: { resourceVersion: lease.metadata.resourceVersion } },
        timeoutMs: this.#timeoutMs,
      })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }
}
