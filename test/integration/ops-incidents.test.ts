/**
 * The operations loop end to end, on the real control plane with the real operator: an App broken for real (a
 * rollout that can never be scheduled, a manifest that does not render) opens exactly one incident; a signed
 * delivery reaches the webhook sink (verified with the documented algorithm, a replay rejected); the proposed
 * rollback, approved, runs as a normal operation and the incident resolves when the App is healthy again; a rejected
 * remediation closes; approving while an operation is pending answers 409; receivers that hang slow nothing down;
 * no other org reaches any of it; and what happened while no server ran is caught up by the next one.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS } from '../../src/core/events.ts';
import { type ChatSink, type GitServer, startChatSink, startGitServer, waitUntil } from '../harness/index.ts';
import {
  auditEntries,
  createOrg,
  expectEveryNotFound,
  signUp,
  signUpMember,
  startTestApi,
  type TestApi,
  type TestUser,
} from './api-support.ts';
import {
  deleteNamespaces,
  deploymentYaml,
  getApp,
  startTestOperator,
  stuckDeploymentYaml,
  type TestOperator,
  unique,
  waitForApp,
} from './operator-support.ts';
import { ReceiverVerifier } from './webhook-verify.ts';

type Json = Record<string, unknown>;
interface IncidentJson {
  id: string;
  cause: string;
  state: string;
  remediations: { id: string; action: string; revision: string | null; state: string; pause_automated: boolean }[];
  timeline: { kind: string; type?: string; data?: Json }[];
}

const ALL_EVENTS = [...WEBHOOK_EVENTS];

describe('incidents, remediations and webhooks around a real operator', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ops-'));
  const shared = {
    mgmtKubeconfig: '',
    databaseURL: `sqlite:${join(dir, 'svc.db')}`,
    authSecret: randomBytes(32).toString('hex'),
    env: {
      SVC_CREDENTIALS_KEY: randomBytes(32).toString('hex'),
      SVC_WEBHOOK_RETRY_BASE: '500ms',
      SVC_WEBHOOK_RETRY_MAX: '5s',
    },
  };
  const dests: string[] = [];
  let api: TestApi;
  let git: GitServer;
  let sink: ChatSink;
  let hanging: ChatSink;
  let op: TestOperator;
  let owner: TestUser;
  let viewer: TestUser;
  let stranger: TestUser;
  let orgNs: string;
  let secret: string;

  const dest = () => {
    const d = unique('dest');
    dests.push(d);
    return d;
  };

  beforeAll(async () => {
    const { inject } = await import('vitest');
    shared.mgmtKubeconfig = inject('mgmtKubeconfig');
    git = await startGitServer();
    sink = await startChatSink();
    hanging = await startChatSink();
    hanging.slow(10 * 60_000);
    api = await startTestApi(shared);
    owner = await signUp(api, 'owner');
    const slug = `ops-${randomBytes(3).toString('hex')}`;
    orgNs = `org-${slug}`;
    const orgId = await createOrg(api, owner, slug);
    viewer = await signUpMember(api, owner, orgId, 'viewer', 'viewer');
    stranger = await signUp(api, 'stranger');
    await createOrg(api, stranger, `other-${randomBytes(3).toString('hex')}`);
    op = await startTestOperator(orgNs);
    const hook = await api.call<{ secret: string }>('POST', '/api/v1/webhooks', {
      cookie: owner.cookie,
      body: { url: sink.url, events: ALL_EVENTS },
    });
    secret = hook.body.secret;
    // A second receiver that never answers: its deliveries wait, nothing else does.
    await api.call('POST', '/api/v1/webhooks', {
      cookie: owner.cookie,
      body: { url: hanging.url, events: ALL_EVENTS },
    });
  });

  afterAll(async () => {
    await op?.stop();
    await api?.close();
    await git?.stop();
    await sink?.stop();
    await hanging?.stop();
    await deleteNamespaces(orgNs, ...dests);
    rmSync(dir, { recursive: true, force: true });
  });

  async function createApp(name: string, files: Record<string, string>, notifications?: Json) {
    const repo = await git.createRepo(unique(name), files);
    const namespace = dest();
    const res = await api.call('POST', '/api/v1/apps', {
      cookie: owner.cookie,
      body: {
        name,
        namespace,
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        sync_policy: { automated: true },
        ...(notifications ? { notifications } : {}),
      },
    });
    if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${JSON.stringify(res.body)}`);
    await waitForApp(
      orgNs,
      name,
      'Synced and Healthy',
      (a) => a.status?.healthStatus === 'Healthy' && a.status.syncStatus === 'Synced',
    );
    return { repo, namespace, c1: await repo.head() };
  }

  async function openIncident(appName: string, cause: string): Promise<IncidentJson> {
    const listed = await waitUntil(
      async () => {
        const res = await api.call<{ incidents: Json[] }>('GET', `/api/v1/incidents?state=open&app=${appName}`, {
          cookie: owner.cookie,
        });
        return res.body.incidents.find((i) => i['cause'] === cause);
      },
      { what: `an open ${cause} incident for ${appName}`, timeoutMs: 90_000 },
    );
    return (await api.call<IncidentJson>('GET', `/api/v1/incidents/${listed['id']}`, { cookie: owner.cookie })).body;
  }

  const incidentOf = async (id: string) =>
    (await api.call<IncidentJson>('GET', `/api/v1/incidents/${id}`, { cookie: owner.cookie })).body;
  const received = (type: string, incidentId: string) =>
    sink.waitFor((r) => r.headers['x-svc-event'] === type && r.body.includes(incidentId), 60_000);

  it('opens one incident for a broken rollout, and approving its rollback heals the App and resolves it', async () => {
    const { repo, c1 } = await createApp(
      'web',
      { 'm/web.yaml': deploymentYaml('web') },
      {
        msTeams: { webhookURL: hanging.url, onHealthDegraded: true, onHealthRecovered: true, onSyncSuccess: true },
      },
    );
    await repo.commit({ 'm/web.yaml': stuckDeploymentYaml('web') }, 'a rollout that cannot schedule');
    const incident = await openIncident('web', 'Degraded');

    // The signed delivery reaches the receiver; the documented check accepts it once.
    const opened = await received('incident.opened', incident.id);
    const receiver = new ReceiverVerifier(secret);
    expect(receiver.verify(opened.headers['x-svc-signature'], opened.body)).toBe('ok');
    expect(receiver.verify(opened.headers['x-svc-signature'], opened.body)).toBe('replay');
    expect(opened.json).toMatchObject({ type: 'incident.opened', app: { name: 'web' }, data: { cause: 'Degraded' } });

    const rollback = incident.remediations.find((r) => r.action === 'rollback');
    expect(rollback).toMatchObject({ revision: c1, state: 'proposed', pause_automated: true });
    if (!rollback) throw new Error('no rollback proposed');
    await received('remediation.proposed', incident.id);

    expect(
      (await api.call('POST', `/api/v1/remediations/${rollback.id}/approve`, { cookie: viewer.cookie })).status,
    ).toBe(403);
    const approved = await api.call<Json>('POST', `/api/v1/remediations/${rollback.id}/approve`, {
      cookie: owner.cookie,
    });
    expect(approved).toMatchObject({ status: 200, body: { state: 'approved', operation_id: expect.any(String) } });
    expect(
      (await api.call('POST', `/api/v1/remediations/${rollback.id}/approve`, { cookie: owner.cookie })).status,
    ).toBe(409);

    const healed = await waitForApp(
      orgNs,
      'web',
      'rolled back and Healthy',
      (a) =>
        a.status?.operationState?.id === approved.body['operation_id'] &&
        a.status?.operationState?.phase === 'Succeeded' &&
        a.status?.healthStatus === 'Healthy',
      90_000,
    );
    expect(healed.status?.revision).toBe(c1);
    expect(healed.spec.syncPolicy?.automated).toBe(false);
    const resolved = await waitUntil(
      async () => {
        const i = await incidentOf(incident.id);
        return i.state === 'resolved' && i.remediations.every((r) => r.state !== 'approved') ? i : undefined;
      },
      { what: 'the incident to resolve and the rollback to be executed', timeoutMs: 60_000 },
    );
    expect(resolved.remediations.map((r) => [r.action, r.state])).toEqual([
      ['rollback', 'executed'],
      ['restart', 'expired'],
    ]);
    const types = resolved.timeline.filter((e) => e.kind === 'event').map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(['incident.opened', 'remediation.approved', 'remediation.executed', 'incident.resolved']),
    );
    expect(resolved.timeline.some((e) => e.kind === 'operation' && e.data?.['kind'] === 'Rollback')).toBe(true);
    expect(resolved.timeline.some((e) => e.kind === 'delivery')).toBe(true);
    for (const type of ['remediation.approved', 'remediation.executed', 'incident.resolved'])
      await received(type, incident.id);
    await sink.waitFor((r) => r.headers['x-svc-event'] === 'health.recovered' && r.body.includes('"name":"web"'));

    // Exactly one incident over the whole episode, though the Degraded App was observed many times.
    const all = await api.call<{ incidents: Json[] }>('GET', '/api/v1/incidents?app=web', { cookie: owner.cookie });
    expect(all.body.incidents.map((i) => i['id'])).toEqual([incident.id]);
    expect((await auditEntries(api, owner, 'incident.open', 'web')).map((e) => e['user_id'])).toEqual(['']);
    expect((await auditEntries(api, owner, 'remediation.approve', 'web')).map((e) => e['user_id'])).toEqual([owner.id]);
    expect(await auditEntries(api, owner, 'app.rollback', 'web')).toEqual([
      expect.objectContaining({
        user_id: owner.id,
        details: expect.objectContaining({ revision: c1, automated_paused: true }),
      }),
    ]);
    expect((await auditEntries(api, owner, 'incident.resolve', 'web')).map((e) => e['user_id'])).toEqual(['']);

    // The receiver that never answers got its deliveries attempted and is still waiting on them, while everything
    // above (the operator's notification to it included) went on.
    expect(hanging.requests.length).toBeGreaterThan(0);
  });

  it('closes a rejected remediation, and refuses to approve one while an operation is pending (409)', async () => {
    const { repo, c1 } = await createApp('api', { 'm/api.yaml': deploymentYaml('api') });
    await repo.commit({ 'm/bad.yaml': 'kind: ConfigMap\n' }, 'a manifest without apiVersion');
    const incident = await openIncident('api', 'SyncFailed');
    // The applied revision is the healthy one: nothing to roll back to; a re-sync is proposed.
    expect(incident.remediations.map((r) => r.action)).toEqual(['resync']);
    const resync = incident.remediations[0];
    if (!resync) throw new Error('no resync proposed');
    expect((await getApp(orgNs, 'api'))?.status?.revision).toBe(c1);

    // A held sync is pending: the remediation's operation cannot be written, and it stays proposed.
    const ns = (await getApp(orgNs, 'api'))?.spec.destination.namespace;
    expect((await api.call('POST', `/api/v1/apps/${ns}/api/freeze`, { cookie: owner.cookie })).status).toBe(200);
    expect((await api.call('POST', `/api/v1/apps/${ns}/api/sync`, { cookie: owner.cookie })).status).toBe(200);
    const pending = await api.call<Json>('POST', `/api/v1/remediations/${resync.id}/approve`, { cookie: owner.cookie });
    expect(pending.status).toBe(409);
    expect(pending.body['error']).toMatch(/pending/);
    expect(
      (await api.call<Json>('GET', `/api/v1/remediations/${resync.id}`, { cookie: owner.cookie })).body['state'],
    ).toBe('proposed');

    const rejected = await api.call<Json>('POST', `/api/v1/remediations/${resync.id}/reject`, {
      cookie: owner.cookie,
      body: { reason: 'the manifest needs a fix upstream' },
    });
    expect(rejected).toMatchObject({ status: 200, body: { state: 'rejected', decided_by: owner.id } });
    expect((await api.call('POST', `/api/v1/remediations/${resync.id}/reject`, { cookie: owner.cookie })).status).toBe(
      409,
    );
    const note = await received('remediation.rejected', incident.id);
    expect(new ReceiverVerifier(secret).verify(note.headers['x-svc-signature'], note.body)).toBe('ok');
    expect(await auditEntries(api, owner, 'remediation.reject', 'api')).toEqual([
      expect.objectContaining({ user_id: owner.id, details: expect.objectContaining({ action: 'resync' }) }),
    ]);
    // The incident itself stays open: the App still fails to sync.
    expect((await incidentOf(incident.id)).state).toBe('open');
  });

  it('reaches no other org’s incidents or remediations on any route', async () => {
    const listed = await api.call<{ incidents: { id: string }[] }>('GET', '/api/v1/incidents', {
      cookie: owner.cookie,
    });
    const incident = await incidentOf(listed.body.incidents[0]?.id ?? '');
    const remediation = incident.remediations[0];
    if (!remediation) throw new Error('no remediation to try');
    const theirs = await api.call<{ incidents: Json[] }>('GET', '/api/v1/incidents', { cookie: stranger.cookie });
    expect(theirs.body.incidents).toEqual([]);
    const theirRemediations = await api.call<{ remediations: Json[] }>('GET', '/api/v1/remediations', {
      cookie: stranger.cookie,
    });
    expect(theirRemediations.body.remediations).toEqual([]);
    const tries: Array<[string, string]> = [
      ['GET', `/api/v1/incidents/${incident.id}`],
      ['POST', `/api/v1/incidents/${incident.id}/acknowledge`],
      ['POST', `/api/v1/incidents/${incident.id}/resolve`],
      ['GET', `/api/v1/remediations/${remediation.id}`],
      ['POST', `/api/v1/remediations/${remediation.id}/approve`],
      ['POST', `/api/v1/remediations/${remediation.id}/reject`],
    ];

    await expectEveryNotFound(api, { cookie: stranger.cookie }, tries);
    // An incident about another org's App cannot be reported: the App reads as absent.
    const foreign = await api.call('POST', '/api/v1/incidents', {
      cookie: stranger.cookie,
      body: { title: 'theirs', app: 'web' },
    });
    expect(foreign.status).toBe(404);
    const mine = await api.call<{ remediations: Json[] }>('GET', '/api/v1/remediations', { cookie: viewer.cookie });
    expect(mine.body.remediations.map((r) => r['id'])).toContain(remediation.id);
  });

  it('catches up on what happened while no server ran', async () => {
    const { repo } = await createApp('late', { 'm/late.yaml': deploymentYaml('late') });
    // The detector has seen it healthy (its sync was told) before the server goes away.
    await sink.waitFor(
      (r) => r.headers['x-svc-event'] === 'sync.succeeded' && r.body.includes('"name":"late"'),
      60_000,
    );
    await api.close();
    await repo.commit({ 'm/late.yaml': stuckDeploymentYaml('late') }, 'broken while the server is down');
    await waitForApp(orgNs, 'late', 'Degraded', (a) => a.status?.healthStatus === 'Degraded', 90_000);
    api = await startTestApi(shared);
    const incident = await openIncident('late', 'Degraded');
    expect(incident.timeline.filter((e) => e.kind === 'event').map((e) => e.type)).toEqual(
      expect.arrayContaining(['health.degraded', 'incident.opened']),
    );
    await received('incident.opened', incident.id);
  });
});
