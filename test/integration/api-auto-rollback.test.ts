/**
 * Automatic rollback (issue 30, item 3) against the real control plane, the real operator and the API's incident
 * detector: an App with `autoRollback: {onDegradedFor: 5s}` whose new revision can never become ready (a rollout no
 * node can schedule, Degraded through its Pods once its progress deadline passes) is rolled back by svc to the last
 * healthy revision and held there: Healthy again, `heldAt` by system:auto-rollback naming the delay and the failed
 * revision, a push does not move it, its Degraded incident shows the rollback as an executed remediation, the audit
 * log has it as a system action (user_id empty), and the App's notification receiver was told.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_ROLLBACK_ACTOR } from '../../src/core/auto-rollback.ts';
import { type ChatSink, type GitServer, startChatSink, startGitServer, waitUntil } from '../harness/index.ts';
import { auditEntries, createOrg, signUp, startTestApi, type TestApi, type TestUser } from './api-support.ts';
import {
  deleteNamespaces,
  deploymentYaml,
  eventsOnceReported,
  getApp,
  startTestOperator,
  stuckDeploymentYaml,
  type TestOperator,
  unique,
  waitForApp,
} from './operator-support.ts';

type Json = Record<string, unknown>;
interface IncidentJson {
  id: string;
  cause: string;
  state: string;
  remediations: {
    action: string;
    revision: string | null;
    state: string;
    result: string | null;
    decided_by: string | null;
    operation_id: string | null;
  }[];
}

describe('automatic rollback of a Degraded App', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-autorollback-'));
  const shared = {
    mgmtKubeconfig: '',
    databaseURL: `sqlite:${join(dir, 'svc.db')}`,
    authSecret: randomBytes(32).toString('hex'),
    env: { SVC_CREDENTIALS_KEY: randomBytes(32).toString('hex') },
  };
  const namespace = unique('dest');
  let api: TestApi;
  let git: GitServer;
  let sink: ChatSink;
  let op: TestOperator;
  let owner: TestUser;
  let orgNs: string;

  beforeAll(async () => {
    const { inject } = await import('vitest');
    shared.mgmtKubeconfig = inject('mgmtKubeconfig');
    git = await startGitServer();
    sink = await startChatSink();
    api = await startTestApi(shared);
    owner = await signUp(api, 'owner');
    const slug = `ar-${randomBytes(3).toString('hex')}`;
    orgNs = `org-${slug}`;
    await createOrg(api, owner, slug);
    op = await startTestOperator(orgNs);
  });

  afterAll(async () => {
    await op?.stop();
    await api?.close();
    await git?.stop();
    await sink?.stop();
    await deleteNamespaces(orgNs, namespace);
    rmSync(dir, { recursive: true, force: true });
  });

  it('rolls a revision Degraded for onDegradedFor back to the healthy one, holds it, and records it', async () => {
    const repo = await git.createRepo(unique('web'), { 'm/web.yaml': deploymentYaml('web') });
    const created = await api.call('POST', '/api/v1/apps', {
      cookie: owner.cookie,
      body: {
        name: 'web',
        namespace,
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        sync_policy: { automated: true, autoRollback: { onDegradedFor: '5s' } },
        notifications: { webhook: { url: sink.url, onHealthDegraded: true } },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ sync_policy: { autoRollback: { onDegradedFor: '5s' } } });
    const c1 = await repo.head();
    const healthy = await waitForApp(
      orgNs,
      'web',
      'Synced and Healthy at the first commit',
      (a) => a.status?.healthStatus === 'Healthy' && a.status.syncStatus === 'Synced' && a.status.revision === c1,
    );
    expect(healthy.status?.healthyRevision).toBe(c1);

    // A new revision whose Pods no node can schedule: Degraded once its 1 s progress deadline passed.
    await repo.commit({ 'm/web.yaml': stuckDeploymentYaml('web') }, 'a rollout that cannot schedule');
    const c2 = await repo.head();
    const degraded = await waitForApp(
      orgNs,
      'web',
      'Degraded at the new commit',
      (a) => a.status?.revision === c2 && a.status.healthStatus === 'Degraded',
      90_000,
    );
    expect(degraded.status?.degradedSince).toEqual(expect.any(String));
    expect(degraded.status?.heldAt).toBeUndefined();

    const back = await waitForApp(
      orgNs,
      'web',
      'rolled back automatically, held, and Healthy',
      (a) =>
        a.status?.operationState?.kind === 'Rollback' &&
        a.status.operationState.phase === 'Succeeded' &&
        a.status.revision === c1 &&
        a.status.healthStatus === 'Healthy' &&
        a.status.heldAt !== undefined,
      90_000,
    );
    expect(back.status?.operationState).toMatchObject({ triggeredBy: AUTO_ROLLBACK_ACTOR, revision: c1 });
    expect(back.status?.heldAt).toMatchObject({
      revision: c1,
      by: AUTO_ROLLBACK_ACTOR,
      reason: `Degraded for 5s at revision ${c2}`,
    });
    expect(back.status?.degradedSince).toBeUndefined();
    // The delay was waited for: the hold was made no earlier than onDegradedFor after the App turned Degraded.
    const heldAt = Date.parse(back.status?.heldAt?.at ?? '');
    expect(heldAt - Date.parse(degraded.status?.degradedSince ?? '')).toBeGreaterThanOrEqual(5000);
    const view = await api.call<Json>('GET', `/api/v1/apps/${namespace}/web`, { cookie: owner.cookie });
    expect(view.body['held_at']).toMatchObject({ revision: c1, by: AUTO_ROLLBACK_ACTOR });
    const event = (await eventsOnceReported(orgNs, 'web', 'AutoRollback')).find((e) => e.reason === 'AutoRollback');
    expect(event?.type).toBe('Warning');
    expect(event?.message).toContain(`Degraded for 5s at revision ${c2}: rolling back to ${c1}`);

    // The App's notification receiver was told (the channel asked for Degraded).
    const note = await sink.waitFor((r) => r.body.includes('"event":"rollback.automatic"'), 60_000);
    expect(JSON.parse(note.body)).toMatchObject({ event: 'rollback.automatic', app: 'web', revision: c1 });

    // A push does not move it: the operator sees the new head and keeps the held revision.
    await repo.commit({ 'm/web.yaml': stuckDeploymentYaml('web').replace('nginx:1.0', 'nginx:1.1') }, 'another');
    const c3 = await repo.head();
    const after = await waitForApp(orgNs, 'web', 'the push seen', (a) => a.status?.observedRevision === c3, 60_000);
    expect(after.status?.revision).toBe(c1);
    expect(after.status?.heldAt?.revision).toBe(c1);
    expect(after.status?.healthStatus).toBe('Healthy');

    // The Degraded incident records the rollback as executed, decided by svc; the other proposals expired.
    const incident = await waitUntil(
      async () => {
        const list = await api.call<{ incidents: Json[] }>('GET', '/api/v1/incidents?app=web', {
          cookie: owner.cookie,
        });
        const found = list.body.incidents.find((i) => i['cause'] === 'Degraded');
        if (!found) return undefined;
        const one = await api.call<IncidentJson>('GET', `/api/v1/incidents/${found['id']}`, { cookie: owner.cookie });
        return one.body.remediations.some((r) => r.state === 'executed') ? one.body : undefined;
      },
      { what: 'the Degraded incident with an executed remediation', timeoutMs: 60_000 },
    );
    const executed = incident.remediations.filter((r) => r.state === 'executed');
    expect(executed).toEqual([
      expect.objectContaining({
        action: 'rollback',
        revision: c1,
        result: 'Succeeded',
        decided_by: AUTO_ROLLBACK_ACTOR,
        operation_id: back.status?.operationState?.id,
      }),
    ]);
    expect(incident.remediations.filter((r) => r.state === 'proposed')).toEqual([]);

    // Audited once, as a system action (no user).
    const audit = await auditEntries(api, owner, 'app.rollback', 'web');
    expect(audit).toEqual([
      expect.objectContaining({
        user_id: '',
        details: expect.objectContaining({ revision: c1, from: c2, hold: true, automatic: true }),
      }),
    ]);

    // Released, the App follows the head again (a new failed revision, which svc may roll back again).
    const released = await api.call('POST', `/api/v1/apps/${namespace}/web/release`, { cookie: owner.cookie });
    expect(released.status).toBe(200);
    const moved = await waitForApp(orgNs, 'web', 'at the head once released', (a) => a.status?.revision === c3, 60_000);
    expect(moved.metadata.annotations?.['cd.svc.space/hold']).toBeUndefined();
    expect((await getApp(orgNs, 'web'))?.spec.syncPolicy?.autoRollback?.onDegradedFor).toBe('5s');
  });
});
