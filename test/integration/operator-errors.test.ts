import { describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { DEFAULT_TUNING } from '../../src/operator/index.ts';
import {
  configMapYaml,
  createApp,
  getObject,
  patchSpec,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-errors');
const { org } = suite;

const syncError = (a: AppResource) => a.status?.conditions?.find((c) => c.type === 'SyncError');

describe('sync errors', () => {
  it('production defaults: resync every 60 s, 30 s after errors', () => {
    expect(DEFAULT_TUNING.syncPeriodMs).toBe(60_000);
    expect(DEFAULT_TUNING.errorRequeueMs).toBe(30_000);
  });

  it('a broken manifest: SyncError naming the file, nothing deleted, retried until fixed', async () => {
    const repo = await suite.git.createRepo(unique('broken'), {
      'm/a.yaml': configMapYaml('a'),
      'm/b.yaml': configMapYaml('b'),
    });
    const c1 = await repo.head();
    const dest = await suite.gitApp('broken', repo, { syncPolicy: { automated: true, prune: true } });
    await waitForApp(org, 'broken', 'first sync', (a) => a.status?.revision === c1);
    await repo.commit({ 'm/b.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [b\n' }, 'break b');
    const failed = await waitForApp(org, 'broken', 'SyncError', (a) => syncError(a)?.status === 'True');
    expect(syncError(failed)?.message).toMatch(/^m\/b\.yaml: document 1: invalid YAML/);
    // A commit can fix it: RenderFailed, retried at the error period, not Stalled.
    expect(syncError(failed)?.reason).toBe('RenderFailed');
    expect(failed.status?.conditions?.some((c) => c.type === 'Stalled')).toBe(false);
    expect(failed.status?.revision).toBe(c1);
    expect(await getObject('v1', 'ConfigMap', dest, 'a')).toBeDefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'b')).toBeDefined();
    // Nothing in the spec changes: only the error requeue brings the fix in.
    const c3 = await repo.commit({ 'm/b.yaml': configMapYaml('b', { fixed: 'yes' }) }, 'fix b');
    const fixed = await waitForApp(org, 'broken', 'recovered', (a) => a.status?.revision === c3);
    expect(syncError(fixed)?.status).toBe('False');
  });

  it('an unreachable repository, an unknown branch and an escaping path each give a clear SyncError', async () => {
    const repo = await suite.git.createRepo(unique('ok'), { 'm/a.yaml': configMapYaml('a') });
    const cases: { name: string; git: Record<string, string>; message: RegExp; reason: string; stalled: boolean }[] = [
      {
        name: 'unreachable',
        git: { repoURL: `${suite.git.baseURL}/does-not-exist.git` },
        message: /cannot fetch .*does-not-exist\.git/,
        reason: 'SourceFailed',
        stalled: false,
      },
      {
        name: 'nobranch',
        git: { repoURL: repo.url, branch: 'nope' },
        message: /branch "nope" not found/,
        reason: 'SourceFailed',
        stalled: false,
      },
      {
        name: 'escape',
        git: { repoURL: repo.url, path: '../../etc' },
        message: /path "..\/..\/etc" escapes the repository/,
        reason: 'RenderFailed',
        stalled: true,
      },
    ];
    for (const c of cases) {
      const dest = suite.dest();
      await createApp(org, c.name, {
        source: { type: 'Git', git: c.git as { repoURL: string } },
        destination: { namespace: dest },
        syncPolicy: { automated: true },
      });
    }
    for (const c of cases) {
      const app = await waitForApp(org, c.name, `${c.name} SyncError`, (a) => syncError(a)?.status === 'True');
      expect(syncError(app)?.message).toMatch(c.message);
      expect(syncError(app)?.reason, c.name).toBe(c.reason);
      expect(
        app.status?.conditions?.some((x) => x.type === 'Stalled' && x.status === 'True'),
        c.name,
      ).toBe(c.stalled);
      expect(app.status?.conditions?.find((x) => x.type === 'Ready')?.status).toBe('False');
    }
    // Retried after the error requeue: fixing the branch (a spec edit here) recovers.
    await patchSpec(org, 'nobranch', {
      source: { type: 'Git', git: { repoURL: repo.url, branch: 'main', path: 'm' } },
    });
    await waitForApp(org, 'nobranch', 'recovered', (a) => a.status?.syncStatus === 'Synced');
  });
});
