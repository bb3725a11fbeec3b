/**
 * Fault matrix (issue 17): the git server down and back. An App syncing automatically (with prune) from the harness
 * git server: while the server refuses connections the App shows a SyncError (SourceFailed) naming the git host and is
 * retried, never Stalled; nothing it deployed is pruned or changed and its inventory stays as it was; when the server
 * listens again on the same port the App syncs the commit made meanwhile, without a restart of the operator.
 */
import { describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  getApp,
  getObject,
  reconcileCount,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-fault-git', { tuning: { backoffBaseMs: 200 } });
const { org } = suite;

const condition = (a: AppResource | undefined, type: string) => a?.status?.conditions?.find((c) => c.type === type);

/** `svc_reconcile_total{result=…}` of this suite's operator. */
const reconciles = (result: string) => reconcileCount(suite.op, result);

describe('fault: the git server down and back', () => {
  it('SyncError naming the git host while down, nothing pruned, Synced at the new commit after up', async () => {
    const repo = await suite.git.createRepo(unique('gitdown'), {
      'm/a.yaml': configMapYaml('a', { v: '1' }),
      'm/b.yaml': configMapYaml('b', { v: '1' }),
    });
    const dest = await suite.gitApp('gitdown', repo, { syncPolicy: { automated: true, prune: true } });
    const c1 = await repo.head();
    const synced = await waitForApp(org, 'gitdown', 'first sync', (a) => {
      return a.status?.syncStatus === 'Synced' && a.status.revision === c1 && a.status.healthStatus === 'Healthy';
    });
    const inventory = synced.status?.inventory;
    expect(inventory?.map((e) => e.id)).toEqual([`${dest}_a__ConfigMap`, `${dest}_b__ConfigMap`]);
    const gitHost = new URL(repo.url).host;

    await suite.git.down();
    try {
      // A commit lands while the server is down: the operator cannot see it until the server is back.
      const c2 = await repo.commit({ 'm/a.yaml': configMapYaml('a', { v: '2' }) }, 'v2');
      const failing = await waitForApp(
        org,
        'gitdown',
        'SyncError while git is down',
        (a) => condition(a, 'SyncError')?.status === 'True',
      );
      expect(condition(failing, 'SyncError')).toMatchObject({ reason: 'SourceFailed' });
      expect(condition(failing, 'SyncError')?.message).toContain(gitHost);
      expect(condition(failing, 'SyncError')?.message).not.toMatch(/\n\s+at /);
      expect(condition(failing, 'Stalled')).toBeUndefined();

      // Several more failed reconciles while it stays down: each one is a chance to prune, none may.
      const errors = await reconciles('error');
      await waitUntil(async () => (await reconciles('error')) >= errors + 3 || undefined, {
        what: 'three more failed reconciles',
        timeoutMs: 60_000,
      });
      const during = await getApp(org, 'gitdown');
      expect(during?.status?.revision).toBe(c1);
      expect(during?.status?.inventory).toEqual(inventory);
      expect(condition(during, 'SyncError')?.status).toBe('True');
      for (const name of ['a', 'b']) {
        const cm = await getObject('v1', 'ConfigMap', dest, name);
        expect(cm?.['data'], `ConfigMap ${name} kept while git is down`).toEqual({ v: '1' });
        expect(cm?.metadata['deletionTimestamp']).toBeUndefined();
      }

      await suite.git.up();
      const recovered = await waitForApp(
        org,
        'gitdown',
        'Synced at the new commit after up',
        (a) =>
          a.status?.revision === c2 &&
          a.status.syncStatus === 'Synced' &&
          condition(a, 'SyncError')?.status === 'False',
        90_000,
      );
      expect(recovered.status?.inventory).toEqual(inventory);
      expect((await getObject('v1', 'ConfigMap', dest, 'a'))?.['data']).toEqual({ v: '2' });
      expect((await getObject('v1', 'ConfigMap', dest, 'b'))?.['data']).toEqual({ v: '1' });
    } finally {
      await suite.git.up().catch(() => undefined);
    }
  });
});
