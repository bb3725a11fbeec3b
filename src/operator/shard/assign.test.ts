import { describe, expect, it } from 'vitest';
import { Assignment, ownerOf, shardKey, viewId } from './assign.ts';

const keys = Array.from({ length: 6000 }, (_, i) => `org-${i % 7}/app-${i}`);
const replicas = (n: number) => Array.from({ length: n }, (_, i) => `operator-${i}`);

function shares(members: string[]): Map<string, number> {
  const counts = new Map<string, number>(members.map((m) => [m, 0]));
  for (const k of keys) {
    const o = ownerOf(k, members) as string;
    counts.set(o, (counts.get(o) ?? 0) + 1);
  }
  return counts;
}

describe('rendezvous assignment', () => {
  it('is deterministic and does not depend on the order of the members', () => {
    const a = new Assignment(['b', 'a', 'c']);
    const b = new Assignment(['c', 'b', 'a', 'a']);
    expect(a.id).toBe(b.id);
    for (const k of keys.slice(0, 500)) expect(a.owner(k)).toBe(b.owner(k));
    expect(ownerOf('x/y', [])).toBeUndefined();
    expect(viewId([])).toBe('none');
  });

  it('balances 6,000 keys within ±10 % of the even share for 2, 3 and 4 replicas', () => {
    for (const n of [2, 3, 4]) {
      const even = keys.length / n;
      for (const count of shares(replicas(n)).values()) {
        expect(Math.abs(count - even) / even).toBeLessThan(0.1);
      }
    }
  });

  it('moves only the keys the joining replica wins, and only the leaving replica keys on a leave', () => {
    const three = replicas(3);
    const four = [...three, 'operator-3'];
    for (const k of keys) {
      const before = ownerOf(k, three);
      const after = ownerOf(k, four);
      // A join moves a key only to the new member.
      if (before !== after) expect(after).toBe('operator-3');
      // The leave of operator-1 moves only its keys.
      const left = ownerOf(k, ['operator-0', 'operator-2']);
      if (before !== 'operator-1') expect(left).toBe(before);
    }
    const moved = keys.filter((k) => ownerOf(k, three) !== ownerOf(k, four)).length;
    // About a quarter of the keys move to the fourth replica (the minimum for a balanced result).
    expect(moved / keys.length).toBeGreaterThan(0.2);
    expect(moved / keys.length).toBeLessThan(0.3);
  });

  it('keeps every App of one destination cluster together when sharding by cluster', () => {
    const members = replicas(3);
    const a = shardKey('cluster', { namespace: 'org-a', name: 'one' }, 'prod');
    const b = shardKey('cluster', { namespace: 'org-a', name: 'two' }, 'prod');
    expect(a).toBe(b);
    expect(ownerOf(a, members)).toBe(ownerOf(b, members));
    // The same cluster name in another org is another cluster.
    expect(shardKey('cluster', { namespace: 'org-b', name: 'one' }, 'prod')).not.toBe(a);
    expect(shardKey('app', { namespace: 'org-a', name: 'one' }, 'prod')).toBe('org-a/one');
  });
});
