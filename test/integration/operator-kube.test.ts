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

describe('Informer lists', () => {
  it('reads a collection larger than one list page, page by page, at one resourceVersion', async () => {
    // 1,100 ConfigMaps: three pages of 500. An informer reading only the first page would hold 500.
    const listNs = `${ns}-pages`;
    await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: listNs } });
    const names = Array.from({ length: 1100 }, (_, i) => `cm-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(
        names.slice(i, i + 50).map((name) =>
          client.request(`/api/v1/namespaces/${listNs}/configmaps`, {
            method: 'POST',
            body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: listNs } },
          }),
        ),
      );
    }
    const informer = new Informer<{ metadata: { name: string; namespace?: string; resourceVersion?: string } }>(
      client,
      `/api/v1/namespaces/${listNs}/configmaps`,
    );
    await informer.start();
    try {
      // kube-root-ca.crt is in every namespace.
      const listed = informer.list().map((o) => o.metadata.name);
      expect(listed.filter((n) => n.startsWith('cm-')).sort()).toEqual(names);
      // And it watches from the list's version: a change after it is seen.
      await objects.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after', namespace: listNs } });
      await waitUntil(() => informer.get(`${listNs}/after`) !== undefined, { what: 'after seen', timeoutMs: 10_000 });
    } finally {
      await informer.stop();
      await client.request(`/api/v1/namespaces/${listNs}`, { method: 'DELETE' });
    }
  }, 120_000);
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
