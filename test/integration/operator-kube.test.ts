import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, Informer, type KubeClient, LeaderElector, type ObjectClient } from '../../src/kube/index.ts';
import { waitUntil } from '../harness/index.ts';

let client: KubeClient;
let objects: ObjectClient;
const ns = `kube-${Date.now().toString(36)}`;

beforeAll(async () => {
  ({ client, objects } = connect({ kubeconfigPath: inject('mgmtKubeconfig') }));
  await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});

afterAll(async () => {
  await objects.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns });
});

describe('ObjectClient', () => {
  it('applies with field manager svc-operator, lists by label, merge-patches and deletes', async () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'one', namespace: ns, labels: { 'cd.svc.space/app': 'x' } },
      data: { a: '1' },
    };
    const live = await objects.apply(cm);
    const managers = (live.metadata['managedFields'] as { manager: string; operation: string }[]).map((m) => m.manager);
    expect(managers).toContain('svc-operator');
    expect(await objects.list('v1', 'ConfigMap', 'cd.svc.space/app=x')).toHaveLength(1);
    expect(await objects.list('v1', 'ConfigMap', 'cd.svc.space/app=y')).toHaveLength(0);
    await objects.mergePatch({ apiVersion: 'v1', kind: 'ConfigMap', name: 'one', namespace: ns }, { data: { b: '2' } });
    const got = await objects.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'one', namespace: ns });
    expect(got?.['data']).toEqual({ a: '1', b: '2' });
    expect(await objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'one', namespace: ns })).toBe(true);
    expect(await objects.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'one', namespace: ns })).toBeUndefined();
    expect(await objects.list('example.test/v1', 'Nothing', 'a=b')).toEqual([]);
  });
});

describe('KubeClient connections', () => {
  it('requests reconnect and an informer watches again after the pooled connections drop', async () => {
    const seen = new Set<string>();
    const informer = new Informer<{ metadata: { name: string; namespace?: string; resourceVersion?: string } }>(
      client,
      `/api/v1/namespaces/${ns}/configmaps`,
      { onUpsert: (o) => seen.add(o.metadata.name), onDelete: () => {} },
    );
    await informer.start();
    try {
      const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns } });
      for (const name of ['w1', 'w2', 'w3']) await objects.apply(cm(name));
      await waitUntil(() => seen.has('w3'), { what: 'w3 seen', timeoutMs: 10_000 });
      await client.dropConnections();
      await objects.apply(cm('w4'));
      await waitUntil(() => seen.has('w4'), { what: 'w4 seen after the drop', timeoutMs: 20_000 });
    } finally {
      await informer.stop();
    }
  });
});

describe('LeaderElector', () => {
  it('elects exactly one leader and hands over when the leader stops', async () => {
    const leading = new Set<string>();
    const make = (id: string) =>
      new LeaderElector({
        client,
        namespace: ns,
        name: 'election',
        identity: id,
        leaseDurationMs: 2000,
        renewDeadlineMs: 1500,
        retryPeriodMs: 200,
        onStartedLeading: () => leading.add(id),
        onStoppedLeading: () => leading.delete(id),
      });
    const a = make('a');
    const b = make('b');
    a.start();
    b.start();
    await waitUntil(() => leading.size === 1, { what: 'a leader', timeoutMs: 20_000 });
    const first = [...leading][0];
    const [winner, loser] = first === 'a' ? [a, b] : [b, a];
    expect(loser.isLeader).toBe(false);
    await winner.stop({ release: false });
    await waitUntil(() => loser.isLeader, { what: 'a leader', timeoutMs: 20_000 });
    expect(leading).toEqual(new Set([first === 'a' ? 'b' : 'a']));
    await loser.stop();
  });
});
