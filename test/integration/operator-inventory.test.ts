/**
 * status.inventory on the real plane: prune deletes exactly what left the applied set (never an object another
 * owner took over, never an object the App did not apply), and cascade deletion deletes the inventory.
 */
import { describe, expect, it } from 'vitest';
import { APP_API_VERSION, APP_KIND } from '../../src/core/app-schema.ts';
import { waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  deploymentYaml,
  eventsOnceReported,
  getApp,
  getObject,
  kube,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-inventory');
const { org } = suite;

/** Relabels a ConfigMap as owned by an App of the same name in another org: it is no longer `org`'s to delete. */
async function takeOver(dest: string, name: string, app: string) {
  await kube().mergePatch(
    { apiVersion: 'v1', kind: 'ConfigMap', name, namespace: dest },
    { metadata: { labels: { 'cd.svc.space/app': app, 'cd.svc.space/app-namespace': 'org-someone-else' } } },
  );
}

describe('inventory', () => {
  it('prune deletes exactly what left the inventory, not what another owner took over or the App never applied', async () => {
    const repo = await suite.git.createRepo(unique('inv'), {
      'm/a.yaml': configMapYaml('a'),
      'm/b.yaml': configMapYaml('b'),
      'm/c.yaml': configMapYaml('c'),
    });
    const c1 = await repo.head();
    const dest = await suite.gitApp('inv', repo, { syncPolicy: { automated: true, prune: true } });
    const first = await waitForApp(org, 'inv', 'first sync', (a) => a.status?.revision === c1);
    expect(first.status?.inventory).toEqual(['a', 'b', 'c'].map((n) => ({ id: `${dest}_${n}__ConfigMap`, v: 'v1' })));

    // Another org's App took over b; a ConfigMap carrying this App's labels was made by hand (never applied by it).
    await takeOver(dest, 'b', 'inv');
    await kube().apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'stray',
        namespace: dest,
        labels: { 'cd.svc.space/app': 'inv', 'cd.svc.space/app-namespace': org },
      },
      data: {},
    });
    const c2 = await repo.commit({ 'm/b.yaml': null, 'm/c.yaml': null }, 'remove b and c');
    const second = await waitForApp(
      org,
      'inv',
      'pruned sync',
      (a) => a.status?.revision === c2 && a.status.syncStatus === 'Synced',
    );
    expect(await getObject('v1', 'ConfigMap', dest, 'c')).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'a')).toBeDefined();
    const b = await getObject('v1', 'ConfigMap', dest, 'b');
    expect(b?.metadata.labels?.['cd.svc.space/app-namespace']).toBe('org-someone-else');
    expect(await getObject('v1', 'ConfigMap', dest, 'stray')).toBeDefined();
    // b left the inventory with its new owner; only a is this App's now.
    expect(second.status?.inventory).toEqual([{ id: `${dest}_a__ConfigMap`, v: 'v1' }]);
    const pruned = (await eventsOnceReported(org, 'inv', 'Pruned'))
      .filter((e) => e.reason === 'Pruned')
      .map((e) => e.message);
    expect(pruned).toEqual([`deleted ConfigMap ${dest}/c`]);
  });

  it('cascade deletion deletes the inventory and leaves what another owner took over', async () => {
    const repo = await suite.git.createRepo(unique('gone'), {
      'm/a.yaml': configMapYaml('a'),
      'm/b.yaml': configMapYaml('b'),
      'm/web.yaml': deploymentYaml('web'),
    });
    const dest = await suite.gitApp('gone', repo, { syncPolicy: { automated: true } });
    const synced = await waitForApp(org, 'gone', 'synced', (a) => a.status?.syncStatus === 'Synced');
    expect(synced.status?.inventory?.map((e) => e.id)).toEqual([
      `${dest}_a__ConfigMap`,
      `${dest}_b__ConfigMap`,
      `${dest}_web_apps_Deployment`,
    ]);
    await takeOver(dest, 'b', 'gone');
    await kube().delete({ apiVersion: APP_API_VERSION, kind: APP_KIND, name: 'gone', namespace: org });
    await waitUntil(async () => (await getApp(org, 'gone')) === undefined, { what: 'App deleted', timeoutMs: 30_000 });
    expect(await getObject('v1', 'ConfigMap', dest, 'a')).toBeUndefined();
    await waitUntil(async () => (await getObject('apps/v1', 'Deployment', dest, 'web')) === undefined, {
      what: 'Deployment deleted',
      timeoutMs: 30_000,
    });
    expect(await getObject('v1', 'ConfigMap', dest, 'b')).toBeDefined();
    const deleted = (await eventsOnceReported(org, 'gone', 'Deleted'))
      .filter((e) => e.reason === 'Deleted')
      .map((e) => e.message);
    expect(deleted).toEqual(['deleted 2 objects']);
  });
});
