import { afterAll, describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  createApp,
  eventsAbout,
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
    const a = await startTestOperator(org, { leaderElect: true, lease, identity: 'operator-a' });
    const b = await startTestOperator(org, { leaderElect: true, lease, identity: 'operator-b' });
    operators.push(a, b);
    const leader = await waitUntil(() => [a, b].find((o) => o.isLeader()), { what: 'a leader', timeoutMs: 20_000 });
    const follower = leader === a ? b : a;
    expect(follower.isLeader()).toBe(false);

    const files: Record<string, string> = {};
    for (let i = 0; i < 150; i++) files[`m/cm-${i}.yaml`] = configMapYaml(`cm-${i}`);
    const repo = await suite.git.createRepo(unique('big'), files);
    await createApp(org, 'big', {
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      destination: { namespace: dest },
    });
    await waitForApp(org, 'big', 'observed', (x) => x.status?.observedRevision !== undefined);
    expect((await events('big')).every((e) => e.reportingInstance !== follower.identity)).toBe(true);

    const id = await requestOperation(org, 'big', 'Sync');
    let running: AppResource | undefined;
    await waitUntil(
      async () => {
        running = await getApp(org, 'big');
        return running?.status?.operationState?.id === id;
      },
      { what: 'operation picked up', timeoutMs: 30_000, intervalMs: 10 },
    );
    await leader.kill();
    const killedMidSync = running?.status?.operationState?.phase === 'Running';
    if (killedMidSync) expect(running?.status?.syncStatus).toBe('Syncing');

    const done = await waitForApp(
      org,
      'big',
      'operation finished',
      (x) => x.status?.operationState?.id === id && x.status.operationState.phase === 'Succeeded',
    );
    expect(done.status?.revision).toBe(await repo.head());
    if (killedMidSync) expect(follower.isLeader()).toBe(true);
    const succeeded = (await events('big')).filter((e) => e.reason === 'OperationSucceeded');
    expect(succeeded).toHaveLength(1);
    if (killedMidSync) expect(succeeded[0]?.reportingInstance).toBe(follower.identity);
  });
});
