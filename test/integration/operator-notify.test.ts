import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatSink, startChatSink } from '../harness/index.ts';
import {
  createApp,
  deploymentYaml,
  eventsAbout,
  getObject,
  requestOperation,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

let sink: ChatSink;

// Registered before the suite's hooks: the sink is up before the operator starts and stops after it.
beforeAll(async () => {
  sink = await startChatSink();
});

afterAll(async () => {
  await sink?.stop();
});

const suite = useOperatorSuite('org-notify');
const { org } = suite;
const dest = suite.dest();

interface Note {
  event: string;
  app: string;
  namespace: string;
  revision: string;
  phase: string;
  message: string;
  text: string;
  link: string;
}
const note = (r: { json: unknown }) => r.json as Note;

describe('restart, events and notifications', () => {
  it('notifies success, restarts workloads, notifies Degraded and failure', async () => {
    const repo = await suite.git.createRepo(unique('notify'), { 'm/web.yaml': deploymentYaml('web') });
    const c1 = await repo.head();
    await createApp(org, 'noisy', {
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      destination: { namespace: dest },
      syncPolicy: { automated: true },
      notifications: {
        chat: { webhookURL: sink.url, onSyncSuccess: true, onSyncFailure: true, onHealthDegraded: true },
      },
    });
    const ok = await sink.waitFor((r) => note(r).event === 'sync.succeeded');
    expect(note(ok)).toMatchObject({ app: 'noisy', namespace: org, revision: c1, phase: 'Succeeded' });
    expect(note(ok).text).toContain('noisy');
    expect(note(ok).link).toContain(`/apps/${dest}/noisy`);
    await waitForApp(org, 'noisy', 'Healthy', (a) => a.status?.healthStatus === 'Healthy');

    const id = await requestOperation(org, 'noisy', 'Restart');
    await waitForApp(
      org,
      'noisy',
      'restart',
      (a) => a.status?.operationState?.id === id && a.status.operationState.phase === 'Succeeded',
    );
    const dep = await getObject('apps/v1', 'Deployment', dest, 'web');
    const template = (
      dep?.['spec'] as { template?: { metadata: { annotations?: Record<string, string> } } } | undefined
    )?.template;
    const annotations = template?.metadata.annotations;
    expect(annotations?.['cd.svc.space/restartedAt']).toBeDefined();
    const events = await eventsAbout(org, 'noisy');
    expect(events.map((e) => e.reason)).toContain('OperationSucceeded');
    expect(events.every((e) => e.source.component === 'svc-operator')).toBe(true);

    // A workload that can never be scheduled passes its progress deadline: Degraded.
    const stuck = deploymentYaml('stuck')
      .replace('spec:\n  replicas: 1', 'spec:\n  progressDeadlineSeconds: 1\n  replicas: 1')
      .replace('    spec:\n      containers:', '    spec:\n      nodeSelector: {nowhere: "true"}\n      containers:');
    const c2 = await repo.commit({ 'm/stuck.yaml': stuck }, 'add stuck');
    const degraded = await sink.waitFor((r) => note(r).event === 'health.degraded', 60_000);
    expect(note(degraded).message).toMatch(/Deployment stuck: 0\/1 ready, progress deadline exceeded/);
    expect(note(degraded).revision).toBe(c2);

    await repo.commit({ 'm/bad.yaml': 'kind: ConfigMap\n' }, 'break');
    const failed = await sink.waitFor((r) => note(r).event === 'sync.failed');
    expect(note(failed).message).toMatch(/m\/bad\.yaml: document 1: missing apiVersion/);
    expect(sink.requests.filter((r) => note(r).event === 'health.degraded')).toHaveLength(1);
  });

  it('a failing chat webhook never blocks reconciling', async () => {
    const repo = await suite.git.createRepo(unique('deaf'), { 'm/web.yaml': deploymentYaml('deaf') });
    await createApp(org, 'deaf', {
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      destination: { namespace: dest },
      syncPolicy: { automated: true },
      notifications: { chat: { webhookURL: 'http://127.0.0.1:9/nowhere', onSyncSuccess: true } },
    });
    await waitForApp(
      org,
      'deaf',
      'Synced',
      (a) => a.status?.syncStatus === 'Synced' && a.status.healthStatus === 'Healthy',
    );
  });
});
