/**
 * The live cache re-queues an App when one of its workloads changes health. The operator here resyncs only every
 * 10 minutes and has no timed requeue while Progressing, so nothing but the watch of the managed objects can turn
 * the App Healthy within the test's timeout. The workload is held unready by a node selector that no node matches
 * until the test labels the fake node.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../harness/index.ts';
import {
  configMapYaml,
  deploymentYaml,
  kube,
  operatorMetric,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-live', { tuning: { syncPeriodMs: 600_000 } });
const { org } = suite;
const readyLabel = `svc-test.cd.svc.space/ready-${randomBytes(3).toString('hex')}`;
let nodeName: string | undefined;

async function labelNode(value: string | null) {
  await kube().mergePatch(
    { apiVersion: 'v1', kind: 'Node', name: nodeName ?? '' },
    { metadata: { labels: { [readyLabel]: value } } },
  );
}

afterAll(async () => {
  if (nodeName) await labelNode(null);
});

describe('live cache', () => {
  it('a workload becoming Ready flips the App to Healthy without a timed requeue', async () => {
    const nodes = await kube().client.request<{ items: { metadata: { name: string } }[] }>('/api/v1/nodes');
    nodeName = nodes.items[0]?.metadata.name;
    expect(nodeName).toBeDefined();

    const repo = await suite.git.createRepo(unique('live'), {
      'm/web.yaml': deploymentYaml('web', 1, 'nginx:1.0', { [readyLabel]: 'yes' }),
    });
    const c1 = await repo.head();
    await suite.gitApp('live', repo, { syncPolicy: { automated: true } });
    const waiting = await waitForApp(
      org,
      'live',
      'applied and Progressing (no node matches the pod)',
      (a) => a.status?.revision === c1 && a.status.syncStatus === 'Synced' && a.status.healthStatus === 'Progressing',
    );
    expect(waiting.status?.conditions?.find((c) => c.type === 'SyncError')?.status).toBe('False');
    expect(waiting.status?.healthReason).toContain('Deployment web: 0/1 ready');

    await labelNode('yes');
    const healthy = await waitForApp(org, 'live', 'Healthy', (a) => a.status?.healthStatus === 'Healthy', 60_000);
    expect(healthy.status?.syncStatus).toBe('Synced');
    expect(healthy.status?.resources?.[0]?.healthStatus).toBe('Healthy');
  });

  it('forgets its own App writes once the watch delivers them, not after a minute', async () => {
    const repo = await suite.git.createRepo(unique('mem'), { 'm/cm.yaml': configMapYaml('a') });
    await suite.gitApp('mem', repo, { syncPolicy: { automated: true } });
    await waitForApp(org, 'mem', 'Synced and Healthy', (a) => a.status?.healthStatus === 'Healthy');
    // Nothing reconciles the App again for 10 minutes (the suite's resync), so nothing but the watch's delivery of
    // the operator's own status writes can empty the read-your-writes cache; its time-out is a minute.
    const remembered = async () => {
      const value = await operatorMetric(suite.op, 'svc_operator_remembered_writes');
      expect(value, 'the gauge is exported').toBeDefined();
      return value;
    };
    await waitUntil(async () => (await remembered()) === 0 || undefined, {
      what: 'no App write remembered',
      timeoutMs: 20_000,
    });
  });
});
