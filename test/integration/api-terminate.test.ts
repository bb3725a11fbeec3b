/**
 * `POST /apps/{ns}/{name}/terminate` (issue 25, item 5) through the API against the real operator: a sync waiting on
 * a PreSync migration Job that can never run (its Pod cannot be scheduled) is ended by the request: Failed, reason
 * Terminated, the hook stopped (deleted), nothing of the App applied, audited `app.terminate`. With nothing
 * requested or running, 409. Meanwhile the operation shows the phase and wave it is in (issue 25, item 6). A clean
 * stop of the operator does not wait on such a hook: the operation stays Running and the next operator resumes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer, waitUntil } from '../harness/index.ts';
import { auditEntries, type OrgApi, startOrgApi } from './api-support.ts';
import {
  configMapYaml,
  deleteNamespaces,
  getObject,
  startTestOperator,
  type TestOperator,
  unique,
  waitForApp,
} from './operator-support.ts';

type Json = Record<string, unknown>;

/** A PreSync hook Job whose Pod no node matches, with no deadline of its own: it waits until stopped. */
const stuckMigration = `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations: {cd.svc.space/hook: PreSync}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {nowhere: "true"}
      containers: [{name: main, image: "migrate:1.0"}]
`;

describe('terminate, with the real operator', () => {
  let org: OrgApi;
  let git: GitServer;
  let op: TestOperator;
  const dests: string[] = [];

  beforeAll(async () => {
    git = await startGitServer();
    org = await startOrgApi('term');
    op = await startTestOperator(org.orgNs);
  });
  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await org?.api.close();
    await deleteNamespaces(org.orgNs, ...dests);
  });

  const post = (path: string) => org.api.call<Json>('POST', path, { cookie: org.owner.cookie });

  it('ends a sync waiting on its PreSync hook: Failed, reason Terminated, the hook stopped, nothing applied', async () => {
    const repo = await git.createRepo(unique('term'), {
      'm/migrate.yaml': stuckMigration,
      'm/a.yaml': configMapYaml('a'),
    });
    const dest = unique('dest');
    dests.push(dest);
    const created = await org.api.call('POST', '/api/v1/apps', {
      cookie: org.owner.cookie,
      body: { name: 'term', namespace: dest, source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } } },
    });
    expect(created.status).toBe(201);
    const path = `/api/v1/apps/${dest}/term`;
    await waitForApp(org.orgNs, 'term', 'first report', (a) => a.status?.observedRevision !== undefined);
    const nothing = await post(`${path}/terminate`);
    expect(nothing).toMatchObject({ status: 409, body: { error: expect.stringMatching(/no operation/) } });

    const sync = await post(`${path}/sync`);
    expect(sync.status).toBe(200);
    const id = sync.body['operation_id'];
    await waitUntil(async () => (await getObject('batch/v1', 'Job', dest, 'migrate')) ?? undefined, {
      what: 'the PreSync hook created',
    });
    // The operation shows the phase and wave it is in, on the App and in the API's status view.
    const app = await waitForApp(
      org.orgNs,
      'term',
      'Running its PreSync wave',
      (a) => a.status?.operationState?.phase === 'Running' && a.status.operationState.syncPhase === 'PreSync',
    );
    expect(app.status?.operationState).toMatchObject({ id, wave: 0, message: 'PreSync wave 0' });
    const view = await org.api.call<Json>('GET', `${path}/status`, { cookie: org.owner.cookie });
    expect(view.body['operationState']).toMatchObject({ phase: 'Running', syncPhase: 'PreSync', wave: 0 });

    const terminated = await post(`${path}/terminate`);
    expect(terminated).toMatchObject({ status: 200, body: { operation_id: id, name: 'term' } });
    const failed = await waitForApp(
      org.orgNs,
      'term',
      'Failed',
      (a) => a.status?.operationState?.id === id && a.status?.operationState?.phase === 'Failed',
    );
    expect(failed.status?.operationState?.message).toMatch(/operation terminated by request waiting for PreSync Job/);
    expect(failed.status?.operationState?.reason).toBe('Terminated');
    await waitUntil(async () => (await getObject('batch/v1', 'Job', dest, 'migrate')) === undefined || undefined, {
      what: 'the hook stopped (deleted)',
    });
    expect(await getObject('v1', 'ConfigMap', dest, 'a')).toBeUndefined();
    const [audit] = await auditEntries(org.api, org.owner, 'app.terminate', 'term');
    expect(audit?.['details']).toMatchObject({ operation_id: id, kind: 'Sync' });
    // It has ended: nothing left to terminate, and a new sync is accepted.
    expect((await post(`${path}/terminate`)).status).toBe(409);
    expect((await post(`${path}/sync`)).status).toBe(200);
  });

  it('a clean stop does not wait on a running hook: the operation stays Running and the next operator resumes it', async () => {
    const repo = await git.createRepo(unique('resume'), { 'm/migrate.yaml': stuckMigration });
    const dest = unique('dest');
    dests.push(dest);
    const created = await org.api.call('POST', '/api/v1/apps', {
      cookie: org.owner.cookie,
      body: { name: 'resume', namespace: dest, source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } } },
    });
    expect(created.status).toBe(201);
    const path = `/api/v1/apps/${dest}/resume`;
    await waitForApp(org.orgNs, 'resume', 'first report', (a) => a.status?.observedRevision !== undefined);
    const sync = await post(`${path}/sync`);
    const id = sync.body['operation_id'];
    await waitForApp(
      org.orgNs,
      'resume',
      'Running its PreSync wave',
      (a) => a.status?.operationState?.id === id && a.status?.operationState?.syncPhase === 'PreSync',
    );
    // The hook would wait for as long as the operation's deadline (minutes by default); the stop ends the wait.
    await op.stop();
    const stopped = await waitForApp(org.orgNs, 'resume', 'the App read after the stop', () => true);
    expect(stopped.status?.operationState).toMatchObject({ id, phase: 'Running', syncPhase: 'PreSync' });

    // The next operator takes the operation up where it was: only an operator running it answers a terminate.
    op = await startTestOperator(org.orgNs);
    expect((await post(`${path}/terminate`)).status).toBe(200);
    const failed = await waitForApp(
      org.orgNs,
      'resume',
      'Failed',
      (a) => a.status?.operationState?.id === id && a.status?.operationState?.phase === 'Failed',
    );
    expect(failed.status?.operationState).toMatchObject({ reason: 'Terminated' });
    expect(failed.status?.operationState?.message).toMatch(/operation terminated by request waiting for PreSync Job/);
  });
});
