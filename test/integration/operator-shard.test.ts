import { afterAll, describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { ownerOf } from '../../src/operator/shard/assign.ts';
import { waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  createApp,
  eventsAbout,
  getApp,
  requestOperation,
  shardShare,
  startTestOperator,
  syncReporters,
  type TestOperator,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-shard', false);
const { org } = suite;
const operators: TestOperator[] = [];
const lease = { name: unique('svc-shard-test'), durationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 250 };
const identities = ['shard-a', 'shard-b', 'shard-c'];

// Registered after the suite's hooks, so it runs before them: the operators stop before the git server does.
afterAll(async () => {
  for (const o of operators) await o.stop().catch(() => undefined);
});

/** Two App names per replica (under the three-member assignment), so every replica has a share to hand over. */
function appNames(): string[] {
  const picked = new Map<string, string[]>(identities.map((id) => [id, []]));
  for (let i = 0; [...picked.values()].some((names) => names.length < 2); i++) {
    const name = `app-${i}`;
    const names = picked.get(ownerOf(`${org}/${name}`, identities) as string) as string[];
    if (names.length < 2) names.push(name);
  }
  return [...picked.values()].flat();
}

const activeWith = (ops: TestOperator[], members: number) => () =>
  ops.every((o) => o.shard()?.active === true && o.shard()?.members.length === members);

describe('sharded operators', () => {
  it('split the Apps by the assignment; a killed replica’s Apps are picked up and its operation completes exactly once', async () => {
    const tuning = { syncPeriodMs: 600_000 };
    const env = { SVC_OPERATOR_SHARDING: 'app' };
    for (const identity of identities) {
      operators.push(await startTestOperator(org, { env, lease, identity, tuning }));
    }
    await waitUntil(activeWith(operators, 3), { what: 'three active shards', timeoutMs: 20_000 });

    const names = appNames();
    const repo = await suite.git.createRepo(unique('shard'), { 'm/cm.yaml': configMapYaml('cm') });
    for (const name of names) {
      await createApp(org, name, {
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        destination: { namespace: suite.dest() },
      });
    }
    // Every App's Events come from exactly one replica: the one the assignment names.
    for (const name of names) {
      expect(await syncReporters(org, name)).toEqual(new Set([ownerOf(`${org}/${name}`, identities)]));
    }
    for (const op of operators) expect(await shardShare(op)).toBe(2);

    // Kill shard-a mid-sync of one of its Apps: the git server holds the operation's fetch.
    const [victim, survivor1, survivor2] = operators as [TestOperator, TestOperator, TestOperator];
    const [held, other] = names.filter((n) => ownerOf(`${org}/${n}`, identities) === victim.identity) as [
      string,
      string,
    ];
    const hold = suite.git.hold();
    const id = await requestOperation(org, held, 'Sync');
    let running: AppResource | undefined;
    await waitUntil(
      async () => {
        running = await getApp(org, held);
        return running?.status?.operationState?.id === id && hold.waiting() > 0;
      },
      { what: 'the operation Running and its fetch held', timeoutMs: 30_000, intervalMs: 50 },
    );
    expect(running?.status?.operationState?.phase).toBe('Running');
    const killed = victim.kill();
    hold.release();
    await killed;

    const done = await waitForApp(
      org,
      held,
      'operation finished',
      (x) => x.status?.operationState?.id === id && x.status.operationState.phase === 'Succeeded',
    );
    expect(done.status?.revision).toBe(await repo.head());
    const survivors = identities.slice(1);
    const heir = ownerOf(`${org}/${held}`, survivors);
    // Exactly once, and by the App's new owner: the earlier sync's Event (the victim's) and this one's (the heir's);
    // the killed replica's fenced reconcile reported nothing.
    const succeeded = await waitUntil(
      async () => {
        const events = (await eventsAbout(org, held)).filter((e) => e.reason === 'OperationSucceeded');
        return events.length >= 2 ? events : undefined;
      },
      { what: 'the second OperationSucceeded event', timeoutMs: 30_000 },
    );
    expect(succeeded.map((e) => e.reportingInstance).sort()).toEqual([heir, victim.identity].sort());

    // The killed replica's other App is served by its new owner too, and the survivors' shares cover every App.
    await waitUntil(activeWith([survivor1, survivor2], 2), { what: 'two active shards', timeoutMs: 20_000 });
    const reporters = await syncReporters(org, other);
    expect(reporters.has(ownerOf(`${org}/${other}`, survivors))).toBe(true);
    expect((await shardShare(survivor1)) + (await shardShare(survivor2))).toBe(names.length);
  });

  it('a joining replica takes a moved App only after its old owner fenced its running reconcile and acknowledged', async () => {
    const survivors = operators.slice(1);
    const before = identities.slice(1);
    const after = [...before, 'shard-d'];
    // An App the joiner will win from one of the survivors.
    let name = '';
    for (let i = 0; !name; i++) {
      if (ownerOf(`${org}/join-${i}`, after) === 'shard-d') name = `join-${i}`;
    }
    const oldOwner = survivors.find((o) => o.identity === ownerOf(`${org}/${name}`, before)) as TestOperator;
    const repo = await suite.git.createRepo(unique('join'), { 'm/cm.yaml': configMapYaml('cm') });
    await createApp(org, name, {
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      destination: { namespace: suite.dest() },
    });
    expect(await syncReporters(org, name)).toEqual(new Set([oldOwner.identity]));

    // The old owner is mid-sync (its fetch held) when the fourth replica joins.
    const hold = suite.git.hold();
    const id = await requestOperation(org, name, 'Sync');
    await waitUntil(async () => (await getApp(org, name))?.status?.operationState?.id === id && hold.waiting() > 0, {
      what: 'the operation Running and its fetch held',
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    const joiner = await startTestOperator(org, {
      env: { SVC_OPERATOR_SHARDING: 'app' },
      lease,
      identity: 'shard-d',
      tuning: { syncPeriodMs: 600_000 },
    });
    operators.push(joiner);
    // The old owner adopted the new membership but cannot acknowledge it while its reconcile of the App runs, so
    // the joiner does not start.
    await waitUntil(() => oldOwner.shard()?.members.length === 3, {
      what: 'the old owner sees the joiner',
      timeoutMs: 20_000,
    });
    expect(joiner.shard()?.active).toBe(false);
    hold.release();

    await waitUntil(activeWith([...survivors, joiner], 3), { what: 'three active shards', timeoutMs: 20_000 });
    const done = await waitForApp(
      org,
      name,
      'operation finished',
      (x) => x.status?.operationState?.id === id && x.status.operationState.phase === 'Succeeded',
    );
    expect(done.status?.revision).toBe(await repo.head());
    const succeeded = await waitUntil(
      async () => {
        const events = (await eventsAbout(org, name)).filter((e) => e.reason === 'OperationSucceeded');
        return events.length >= 2 ? events : undefined;
      },
      { what: 'the second OperationSucceeded event', timeoutMs: 30_000 },
    );
    // The first sync by the old owner, the held operation once, by the joiner: the fenced reconcile reported nothing.
    expect(succeeded.map((e) => e.reportingInstance).sort()).toEqual([oldOwner.identity, 'shard-d'].sort());
  });
});
