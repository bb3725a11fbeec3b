/**
 * The assignment of Apps to operator replicas: rendezvous (highest random weight) hashing. Every replica computes
 * it alone from the same two inputs (the member list and the App's shard key), so they all agree without talking;
 * a member joining or leaving moves only the keys it wins or held (about 1/n of them), never keys between the others.
 */
import { createHash } from 'node:crypto';

/** What an App is sharded by: the App itself, or its destination cluster (all Apps of one cluster on one replica). */
export type ShardBy = 'app' | 'cluster';

/** The App's shard key: `namespace/name`, or `namespace/cluster` (cluster names are per org; '' is the management cluster). */
export function shardKey(by: ShardBy, app: { namespace: string; name: string }, cluster: string | undefined): string {
  return by === 'cluster' ? `${app.namespace}/cluster:${cluster ?? ''}` : `${app.namespace}/${app.name}`;
}

/** A 48-bit weight of (member, key): the first six bytes of a SHA-256, uniform enough to balance. */
function weight(member: string, key: string): number {
  return createHash('sha256').update(member).update('\0').update(key).digest().readUIntBE(0, 6);
}

/**
 * The member that owns `key`: the one with the highest weight (ties, practically impossible, go to the smaller
 * identity so every replica still agrees). Undefined when there are no members.
 */
export function ownerOf(key: string, members: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestWeight = -1;
  for (const m of members) {
    const w = weight(m, key);
    if (w > bestWeight || (w === bestWeight && best !== undefined && m < best)) {
      best = m;
      bestWeight = w;
    }
  }
  return best;
}

/** One membership (a sorted list of identities) with its owners memoized: asked once per key and view. */
export class Assignment {
  readonly members: readonly string[];
  /** Stable id of the membership: what a replica writes on its Lease to acknowledge it. */
  readonly id: string;
  readonly #owners = new Map<string, string | undefined>();

  constructor(members: Iterable<string>) {
    this.members = [...new Set(members)].sort();
    this.id = viewId(this.members);
  }

  /** The owner of `key` in this membership. */
  owner(key: string): string | undefined {
    if (!this.#owners.has(key)) this.#owners.set(key, ownerOf(key, this.members));
    return this.#owners.get(key);
  }
}

/** The id of a membership: a short hash of its sorted identities (the empty membership is "none"). */
export function viewId(members: readonly string[]): string {
  if (members.length === 0) return 'none';
  return createHash('sha256')
    .update([...members].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
}
