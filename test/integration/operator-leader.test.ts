import { afterAll, describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  createApp,
  eventsAbout,
  eventsOnceReported,
  getApp,
  requestOperation,
  startTestOperator,
  type TestOperator,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-leader', false);
const { org } = suite;
const dest = suite.dest();
const operators: TestOperator[] = [];
const lease = { name: unique('svc-operator-test'), durationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 250 };

// Registered after the suite's hooks, so it runs before them: the operators stop before the git server does.
afterAll(async () => {
  for (const o of operators) await o.stop().catch(() => undefined);
});

const events = (name: string) => eventsAbout(org, name);

describe('leader election', () => {
  it('only the leader reconciles; killed mid-sync, the other takes over and the operation completes exactly once', async () => {
    // No periodic resync: after the first observation nothing fetches from git until the operation does.
    const tuning = { syncPeriodMs: 600_000 };
    const a = await startTestOperator(org, { leaderElect: true, lease, identity: 'operator-a', tuning });
    const b = await startTestOperator(org, { leaderElect: true, lease, identity: 'operator-b', tuning });
    operators.push(a, b);
    const leader = await waitUntil(() => [a, b].find((o) => o.isLeader()), { what: 'a leader', timeoutMs: 20_000 });
    const follower = leader === a ? b : a;
    expect(follower.isLeader()).toBe(false);

    const files: Record<string, string> = {};
    for (let i = 0; i < 3; i++) files[`m/cm-${i}.yaml`] = configMapYaml(`cm-${i}`);
    const repo = await suite.git.createRepo(unique('big'), files);
    await createApp(org, 'big', {
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      destination: { namespace: dest },
    });
    await waitForApp(org, 'big', 'observed', (x) => x.status?.observedRevision !== undefined);
    expect((await events('big')).every((e) => e.reportingInstance !== follower.identity)).toBe(true);

    // The git server holds the operation's fetch: the leader marks the operation Running, then waits on git, so it is
    // provably mid-sync when it is killed.
    const hold = suite.git.hold();
    const id = await requestOperation(org, 'big', 'Sync');
    let running: AppResource | undefined;
    await waitUntil(
      async () => {
        running = await getApp(org, 'big');
        return running?.status?.operationState?.id === id && hold.waiting() > 0;
      },
      { what: 'the operation Running and its fetch held', timeoutMs: 30_000, intervalMs: 50 },
    );
    expect(running?.status?.operationState?.phase).toBe('Running');
    expect(running?.status?.syncStatus).toBe('Syncing');
    // kill() fences the leader's writes at once and resolves when its held reconcile has ended.
    const killed = leader.kill();
    hold.release();
    await killed;

    const done = await waitForApp(
      org,
      'big',
      'operation finished',
      (x) => x.status?.operationState?.id === id && x.status.operationState.phase === 'Succeeded',
    );
    expect(done.status?.revision).toBe(await repo.head());
    expect(follower.isLeader()).toBe(true);
    const succeeded = (await eventsOnceReported(org, 'big', 'OperationSucceeded')).filter(
      (e) => e.reason === 'OperationSucceeded',
    );
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]?.reportingInstance).toBe(follower.identity);
  });
});
