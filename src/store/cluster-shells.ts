/**
 * Shell pods spawned on registered clusters (POST /clusters/{name}/shell): what was created for each and when it
 * expires, so that whichever server replica sweeps next removes it. A row is ended once its objects are gone.
 */
import type { Kysely } from 'kysely';
import type { ObjectRef } from '../core/kube-object.ts';
import type { ClusterShellTable, Tables } from './database.ts';

/** What a shell is made of: the objects to remove when it ends. */
export type ShellObjectRef = ObjectRef;

export interface ShellRecord {
  id: string;
  orgId: string;
  clusterId: string;
  userId: string;
  power: 'view' | 'admin';
  objects: ShellObjectRef[];
  createdAt: string;
  expiresAt: string;
  endedAt: string | null;
}

function toRecord(r: ClusterShellTable): ShellRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    clusterId: r.cluster_id,
    userId: r.user_id,
    power: r.power === 'admin' ? 'admin' : 'view',
    objects: JSON.parse(r.objects) as ShellObjectRef[],
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    endedAt: r.ended_at,
  };
}

/** Shell bookkeeping. */
export class ClusterShellStore {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Records a shell (before its objects are created, so a failure half-way is still swept). */
  async insert(shell: Omit<ShellRecord, 'endedAt'>): Promise<void> {
    await this.#db
      .insertInto('cluster_shell')
      .values({
        id: shell.id,
        org_id: shell.orgId,
        cluster_id: shell.clusterId,
        user_id: shell.userId,
        power: shell.power,
        objects: JSON.stringify(shell.objects),
        created_at: shell.createdAt,
        expires_at: shell.expiresAt,
        ended_at: null,
      })
      .execute();
  }

  /** Shells not ended whose expiry is at or before `now` (any org), oldest first, at most `limit`. */
  async expired(now: Date, limit = 100): Promise<ShellRecord[]> {
    const rows = await this.#db
      .selectFrom('cluster_shell')
      .selectAll()
      .where('ended_at', 'is', null)
      .where('expires_at', '<=', now.toISOString())
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map(toRecord);
  }

  /** Shells of a cluster not ended yet. */
  async openOf(clusterId: string): Promise<ShellRecord[]> {
    const rows = await this.#db
      .selectFrom('cluster_shell')
      .selectAll()
      .where('cluster_id', '=', clusterId)
      .where('ended_at', 'is', null)
      .execute();
    return rows.map(toRecord);
  }

  /** Marks a shell ended (its objects were removed, or its cluster is gone). */
  async end(id: string, now = new Date()): Promise<void> {
    await this.#db.updateTable('cluster_shell').set({ ended_at: now.toISOString() }).where('id', '=', id).execute();
  }
}
