import { describe, expect, it } from 'vitest';
import { configMapYaml, getObject, kube, unique, useOperatorSuite, waitForApp } from './operator-support.ts';

const suite = useOperatorSuite('org-prune');
const { org } = suite;

async function deployTwo(name: string, prune: boolean) {
  const repo = await suite.git.createRepo(unique(name), {
    'm/a.yaml': configMapYaml('a'),
    'm/b.yaml': configMapYaml('b'),
  });
  const c1 = await repo.head();
  const dest = await suite.gitApp(name, repo, { syncPolicy: { automated: true, prune } });
  await waitForApp(org, name, 'first sync', (a) => a.status?.revision === c1);
  return { repo, dest };
}

describe('prune', () => {
  it('deletes a removed manifest, never an unlabelled object or another org App of the same name', async () => {
    const { repo, dest } = await deployTwo('pruner', true);
    const k = kube();
    // Unlabelled, and labelled for an App of the same name in another org namespace: both must survive.
    await k.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hand-made', namespace: dest }, data: {} });
    await k.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'other-org',
        namespace: dest,
        labels: { 'cd.svc.space/app': 'pruner', 'cd.svc.space/app-namespace': 'org-someone-else' },
      },
      data: {},
    });
    const c2 = await repo.commit({ 'm/b.yaml': null }, 'remove b');
    await waitForApp(
      org,
      'pruner',
      'pruned sync',
      (a) => a.status?.revision === c2 && a.status.syncStatus === 'Synced',
    );
    expect(await getObject('v1', 'ConfigMap', dest, 'b')).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'a')).toBeDefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'hand-made')).toBeDefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'other-org')).toBeDefined();
  });

  it('prunes across kinds that left the rendered set entirely', async () => {
    const repo = await suite.git.createRepo(unique('kinds'), {
      'm/a.yaml': configMapYaml('a'),
      'm/s.yaml': 'apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {x: y}\n',
    });
    const c1 = await repo.head();
    const dest = await suite.gitApp('kinds', repo, { syncPolicy: { automated: true, prune: true } });
    const first = await waitForApp(org, 'kinds', 'first sync', (a) => a.status?.revision === c1);
    expect(first.status?.inventory).toEqual([
      { id: `${dest}_a__ConfigMap`, v: 'v1' },
      { id: `${dest}_s__Secret`, v: 'v1' },
    ]);
    expect(first.status?.appliedKinds).toBeUndefined();
    const c2 = await repo.commit({ 'm/s.yaml': null }, 'no more secrets');
    const second = await waitForApp(org, 'kinds', 'second sync', (a) => a.status?.revision === c2);
    expect(await getObject('v1', 'Secret', dest, 's')).toBeUndefined();
    expect(second.status?.inventory).toEqual([{ id: `${dest}_a__ConfigMap`, v: 'v1' }]);
  });

  it('with prune off, a removed manifest stays', async () => {
    const { repo, dest } = await deployTwo('keeper', false);
    const c2 = await repo.commit({ 'm/b.yaml': null }, 'remove b');
    await waitForApp(org, 'keeper', 'second sync', (a) => a.status?.revision === c2);
    expect(await getObject('v1', 'ConfigMap', dest, 'b')).toBeDefined();
  });
});
