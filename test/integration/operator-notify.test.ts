import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatSink, startChatSink, waitUntil } from '../harness/index.ts';
import {
  createApp,
  deploymentYaml,
  eventsAbout,
  eventsOnceReported,
  getObject,
  requestOperation,
  stuckDeploymentYaml,
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
    const events = await eventsOnceReported(org, 'noisy', 'OperationSucceeded');
    expect(events.map((e) => e.reason)).toContain('OperationSucceeded');
    expect(events.every((e) => e.source.component === 'svc-operator')).toBe(true);

    const stuck = stuckDeploymentYaml('stuck');
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

describe('notification channels beyond chat', () => {
  it('posts Slack blocks, a Teams card and the JSON payload per switch, including the recovery', async () => {
    const repo = await suite.git.createRepo(unique('channels'), { 'm/web.yaml': deploymentYaml('chan') });
    const c1 = await repo.head();
    await createApp(org, 'channels', {
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      destination: { namespace: dest },
      syncPolicy: { automated: true },
      notifications: {
        slack: { webhookURL: `${sink.url}/slack`, onHealthDegraded: true },
        msTeams: { webhookURL: `${sink.url}/teams`, onHealthRecovered: true },
        webhook: { url: `${sink.url}/json`, onSyncSuccess: true },
      },
    });
    const json = await sink.waitFor((r) => r.path === '/hook/json' && note(r).app === 'channels');
    expect(note(json)).toMatchObject({ event: 'sync.succeeded', revision: c1, phase: 'Succeeded' });

    const stuck = stuckDeploymentYaml('chan');
    await repo.commit({ 'm/web.yaml': stuck }, 'stuck');
    const slack = await sink.waitFor((r) => r.path === '/hook/slack', 60_000);
    const blocks = slack.json as { text: string; blocks: { type: string }[] };
    expect(blocks.text).toMatch(/channels .* is Degraded/);
    expect(blocks.blocks.map((b) => b.type)).toContain('section');

    await repo.commit({ 'm/web.yaml': deploymentYaml('chan') }, 'fixed');
    const teams = await sink.waitFor((r) => r.path === '/hook/teams', 60_000);
    const card = teams.json as { type: string; attachments: { contentType: string; content: { type: string } }[] };
    expect(card.type).toBe('message');
    expect(card.attachments[0]).toMatchObject({
      contentType: 'application/vnd.microsoft.card.adaptive',
      content: { type: 'AdaptiveCard' },
    });
    expect(teams.body).toContain('channels is Healthy again');
    // Each channel got only what it switched on.
    expect(sink.requests.filter((r) => r.path === '/hook/slack').every((r) => r.body.includes('Degraded'))).toBe(true);
  });

  it('never waits for a hanging receiver, and records a notification given up as a Warning event', async () => {
    const hanging = await startChatSink();
    hanging.slow(10 * 60_000);
    try {
      const repo = await suite.git.createRepo(unique('hang'), { 'm/web.yaml': deploymentYaml('hang') });
      await createApp(org, 'hang', {
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        destination: { namespace: dest },
        syncPolicy: { automated: true },
        notifications: {
          webhook: { url: hanging.url, onSyncSuccess: true },
          slack: { webhookURL: 'http://127.0.0.1:9/refused', onSyncSuccess: true },
        },
      });
      await hanging.waitFor(() => true, 60_000);
      // The next operation runs while that first notification is still being tried: a reconcile that waited for it
      // would have spent its three attempts (three requests) first.
      const id = await requestOperation(org, 'hang', 'Restart');
      await waitForApp(
        org,
        'hang',
        'restarted',
        (a) => a.status?.operationState?.id === id && a.status.operationState.phase === 'Succeeded',
      );
      expect(hanging.requests.length).toBeLessThan(3);
      // The refused receiver is given up after its attempts, with an event naming the channel but not its URL.
      const given = await waitUntil(
        async () => (await eventsAbout(org, 'hang')).find((e) => e.reason === 'NotificationFailed'),
        { what: 'a NotificationFailed event', timeoutMs: 60_000 },
      );
      expect(given.message).toMatch(/^slack notification sync.succeeded failed after 3 attempts/);
      expect(given.message).not.toContain('/refused');
    } finally {
      await hanging.stop();
    }
  });
});
