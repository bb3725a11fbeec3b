/**
 * Migration of Apps written by a release before status.inventory (they carry only status.appliedKinds).
 *
 * Such a status cannot be produced by this operator, so this file writes it through the status subresource: the
 * one place a test writes an App's status by hand, because it simulates data left by a previous release. An
 * operator of this release first syncs the Apps for real (so the objects and their labels are genuine); it is
 * stopped, the statuses are rewritten to the old format, and a new operator takes over.
 */
import { describe, expect, it } from 'vitest';
import { APP_API_VERSION, APP_KIND, type AppResource } from '../../src/core/app-schema.ts';
import { waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  createApp,
  getApp,
  getObject,
  kube,
  startTestOperator,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-migrate', false);
const { org } = suite;

const secretYaml = (name: string) => `apiVersion: v1\nkind: Secret\nmetadata: {name: ${name}}\nstringData: {x: y}\n`;

/** Rewrites an App's status as a release before the inventory left it: appliedKinds, no inventory. */
async function writePreInventoryStatus(app: AppResource, appliedKinds: string[]) {
  await kube().mergePatch(
    { apiVersion: APP_API_VERSION, kind: APP_KIND, name: app.metadata.name, namespace: org },
    { status: { inventory: null, appliedKinds } },
    'status',
  );
  const written = await getApp(org, app.metadata.name);
  expect(written?.status?.inventory).toBeUndefined();
  expect(written?.status?.appliedKinds).toEqual(appliedKinds);
}

describe('an App from before the inventory', () => {
  it('gets its inventory from one label listing, prunes by it, and cascade deletion reaches its objects', async () => {
    const repo = await suite.git.createRepo(unique('old'), {
      'm/a.yaml': configMapYaml('a'),
      'm/b.yaml': configMapYaml('b'),
      'm/s.yaml': secretYaml('s'),
    });
    const c1 = await repo.head();
    const source = { type: 'Git' as const, git: { repoURL: repo.url, path: 'm' } };
    const movedDest = suite.dest();
    const leavingDest = suite.dest();
    const policy = { syncPolicy: { automated: true, prune: true } };
    await createApp(org, 'moved', { source, destination: { namespace: movedDest }, ...policy });
    await createApp(org, 'leaving', { source, destination: { namespace: leavingDest }, ...policy });

    const before = await startTestOperator(org);
    let moved: AppResource;
    let leaving: AppResource;
    try {
      moved = await waitForApp(org, 'moved', 'first sync', (a) => a.status?.revision === c1);
      leaving = await waitForApp(org, 'leaving', 'first sync', (a) => a.status?.revision === c1);
    } finally {
      await before.stop();
    }
    await writePreInventoryStatus(moved, ['v1/ConfigMap', 'v1/Secret']);
    await writePreInventoryStatus(leaving, ['v1/ConfigMap', 'v1/Secret']);
    // Deleted while no operator runs: the finalizer holds it for the next one.
    await kube().delete({ apiVersion: APP_API_VERSION, kind: APP_KIND, name: 'leaving', namespace: org });

    const after = await startTestOperator(org);
    try {
      // Without any change to sync, the new operator builds and writes the inventory, and drops appliedKinds.
      const migrated = await waitForApp(org, 'moved', 'inventory built', (a) => a.status?.inventory !== undefined);
      expect(migrated.status?.inventory).toEqual([
        { id: `${movedDest}_a__ConfigMap`, v: 'v1' },
        { id: `${movedDest}_b__ConfigMap`, v: 'v1' },
        { id: `${movedDest}_s__Secret`, v: 'v1' },
      ]);
      expect(migrated.status?.appliedKinds).toBeUndefined();

      // The deleted App's objects are found through its appliedKinds and deleted.
      await waitUntil(async () => (await getApp(org, 'leaving')) === undefined, {
        what: 'App leaving deleted',
        timeoutMs: 30_000,
      });
      for (const [kind, name] of [
        ['ConfigMap', 'a'],
        ['ConfigMap', 'b'],
        ['Secret', 's'],
      ] as const) {
        expect(await getObject('v1', kind, leavingDest, name)).toBeUndefined();
      }

      // Prune by the migrated inventory: b and the Secret left the rendered set.
      const c2 = await repo.commit({ 'm/b.yaml': null, 'm/s.yaml': null }, 'only a');
      const pruned = await waitForApp(
        org,
        'moved',
        'pruned sync',
        (a) => a.status?.revision === c2 && a.status.syncStatus === 'Synced',
      );
      expect(await getObject('v1', 'ConfigMap', movedDest, 'b')).toBeUndefined();
      expect(await getObject('v1', 'Secret', movedDest, 's')).toBeUndefined();
      expect(await getObject('v1', 'ConfigMap', movedDest, 'a')).toBeDefined();
      expect(pruned.status?.inventory).toEqual([{ id: `${movedDest}_a__ConfigMap`, v: 'v1' }]);
    } finally {
      await after.stop();
    }
  });
});
