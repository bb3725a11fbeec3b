/**
 * Sharding by destination cluster (`SVC_OPERATOR_SHARDING=cluster`, issue 29 item 1) and the AppSet controller under
 * sharding, against the real management plane: every App of one destination cluster is reconciled by the one
 * replica the assignment gives that cluster (its share gauge counts them all), the AppSet controller runs on one
 * replica, and when that replica is killed a survivor takes the AppSets and every App over.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { APP_API_VERSION, APP_KIND, APPSET_KIND, APPSET_LABEL } from '../../src/core/app-names.ts';
import type { AppResource } from '../../src/core/app-schema.ts';
import type { AppSetSpec } from '../../src/core/appset-schema.ts';
import { ownerOf } from '../../src/operator/shard/assign.ts';
import { APPSETS_SHARD_KEY } from '../../src/operator/shard/start.ts';
import { waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  createApp,
  deleteNamespaces,
  kube,
  shardShare,
  startTestOperator,
  syncReporters,
  type TestOperator,
  unique,
  useOperatorSuite,
} from './operator-support.ts';

const suite = useOperatorSuite('org-shardc', false);
const { org } = suite;
const operators: TestOperator[] = [];
const lease = { name: unique('svc-shardc-test'), durationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 250 };
const identities = ['shardc-a', 'shardc-b'];
/** The shard key of the management cluster's Apps (assign.ts `shardKey` with cluster ''). */
const mgmtKey = `${org}/cluster:`;

afterAll(async () => {
  for (const o of operators) await o.stop().catch(() => undefined);
  await deleteNamespaces(...['x', 'y', 'z'].map((env) => `${org}-${env}`));
});

/** A destination cluster name the assignment gives to the replica that does not hold the management cluster. */
function otherCluster(): string {
  const mgmtOwner = ownerOf(mgmtKey, identities);
  for (let i = 0; ; i++) {
    if (ownerOf(`${org}/cluster:far-${i}`, identities) !== mgmtOwner) return `far-${i}`;
  }
}

async function generatedNames(appSet: string): Promise<string[]> {
  const items = (await kube().list(
    APP_API_VERSION,
    APP_KIND,
    `${APPSET_LABEL}=${appSet}`,
    org,
  )) as unknown as AppResource[];
  return items.map((a) => a.metadata.name).sort();
}

const activeWith = (ops: TestOperator[], members: number) => () =>
  ops.every((o) => o.shard()?.active === true && o.shard()?.members.length === members);

describe('operators sharded by destination cluster', () => {
  it('keep every App of a cluster on one replica; the AppSets and a killed replica’s Apps move to a survivor', async () => {
    for (const identity of identities) {
      operators.push(
        await startTestOperator(org, {
          env: { SVC_OPERATOR_SHARDING: 'cluster' },
          lease,
          identity,
          tuning: { syncPeriodMs: 600_000 },
          appSetResyncMs: 2_000,
        }),
      );
    }
    await waitUntil(activeWith(operators, 2), { what: 'two active shards', timeoutMs: 20_000 });

    // Four Apps on the management cluster and two on a (never registered) cluster the other replica holds: by App
    // they would spread; by cluster each group stays whole.
    const repo = await suite.git.createRepo(unique('shardc'), { 'm/cm.yaml': configMapYaml('cm') });
    const local = ['l-0', 'l-1', 'l-2', 'l-3'];
    const far = otherCluster();
    for (const name of local) {
      await createApp(org, name, {
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        destination: { namespace: suite.dest() },
      });
    }
    for (const name of ['f-0', 'f-1']) {
      await createApp(org, name, {
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        destination: { cluster: far, namespace: 'far' },
      });
    }
    const mgmtOwner = ownerOf(mgmtKey, identities) as string;
    for (const name of local) expect(await syncReporters(org, name)).toEqual(new Set([mgmtOwner]));
    const byId = new Map(operators.map((o) => [o.identity, o]));
    const holder = byId.get(mgmtOwner) as TestOperator;
    const farHolder = operators.find((o) => o !== holder) as TestOperator;
    await waitUntil(async () => (await shardShare(holder)) === 4 && (await shardShare(farHolder)) === 2, {
      what: 'shares of 4 (management cluster) and 2 (the far cluster)',
      timeoutMs: 20_000,
    });

    // The AppSet controller runs on one replica: its Apps are generated (and converge on the management cluster).
    const spec = (envs: string[]): AppSetSpec => ({
      generators: [{ list: { elements: envs.map((env) => ({ env })) } }],
      template: {
        metadata: { name: 'gen-{{ env }}' },
        spec: {
          source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
          destination: { namespace: `${org}-{{ env }}` },
        },
      },
    });
    const ref = { apiVersion: APP_API_VERSION, kind: APPSET_KIND, namespace: org, name: 'gen' };
    await kube().create({
      apiVersion: APP_API_VERSION,
      kind: APPSET_KIND,
      metadata: { name: 'gen', namespace: org },
      spec: spec(['x', 'y']),
    });
    await waitUntil(async () => (await generatedNames('gen')).join() === 'gen-x,gen-y', {
      what: 'the AppSet generated its Apps',
      timeoutMs: 60_000,
    });

    // Kill the AppSets' replica: the survivor holds every App and the AppSets, and generates a third App.
    const appSetsOwner = byId.get(ownerOf(APPSETS_SHARD_KEY, identities) as string) as TestOperator;
    const survivor = operators.find((o) => o !== appSetsOwner) as TestOperator;
    await appSetsOwner.kill();
    await waitUntil(activeWith([survivor], 1), { what: 'one active shard', timeoutMs: 20_000 });
    await kube().mergePatch(ref, { spec: spec(['x', 'y', 'z']) });
    await waitUntil(async () => (await generatedNames('gen')).join() === 'gen-x,gen-y,gen-z', {
      what: 'the survivor generated the new App',
      timeoutMs: 60_000,
    });
    await waitUntil(async () => (await shardShare(survivor)) === 9, {
      what: 'the survivor holds all nine Apps',
      timeoutMs: 20_000,
    });
    expect([...(await syncReporters(org, local[0] as string))]).toContain(survivor.identity);
  });
});
