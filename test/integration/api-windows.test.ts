/**
 * Delivery windows (issue 30 item 5) through the API against the real operator and database, with the operator's
 * clock set by the test (never by waiting for a real window): an automated App outside the org's allow window is
 * held with the window named, and syncs once the clock reaches the opening (the operator requeues it for the
 * opening: the sync period here is ten minutes); a manual sync inside an App's deny window is refused (409 naming
 * it), an override needs deployment:manage (403 for a contributor), runs, and is audited as such.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer } from '../harness/index.ts';
import { auditEntries, mintKey, type OrgApi, signUpMember, startOrgApi, type TestUser } from './api-support.ts';
import {
  configMapYaml,
  deleteNamespaces,
  startTestOperator,
  type TestOperator,
  unique,
  waitForApp,
} from './operator-support.ts';

type Json = Record<string, unknown>;

/** The next 03:00 UTC after `now`: the opening of the org's allow window below. */
function nextThreeAm(now: number): number {
  const d = new Date(now);
  const at = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 3, 0, 0);
  return at > now ? at : at + 24 * 3_600_000;
}

describe('delivery windows, with the real operator and a set clock', () => {
  let org: OrgApi;
  let git: GitServer;
  let op: TestOperator;
  let alice: TestUser;
  let offset = 0;
  const clock = () => Date.now() + offset;
  const dests: string[] = [];

  beforeAll(async () => {
    git = await startGitServer();
    org = await startOrgApi('windows');
    op = await startTestOperator(org.orgNs, {
      serverChannel: org.api.app.serverChannel,
      windowsTtlMs: 200,
      clock,
      tuning: { syncPeriodMs: 600_000 },
    });
    alice = await signUpMember(org.api, org.owner, org.orgId, 'alice', 'contributor');
  });
  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await org?.api.close();
    await deleteNamespaces(org.orgNs, ...dests);
  });

  const call = (who: TestUser, method: string, path: string, body?: unknown) =>
    org.api.call<Json>(method, path, { cookie: who.cookie, ...(body === undefined ? {} : { body }) });

  async function gitApp(name: string, syncPolicy: Json): Promise<{ path: string; head: string }> {
    const repo = await git.createRepo(unique(name), { 'm/a.yaml': configMapYaml('a') });
    const dest = unique('dest');
    dests.push(dest);
    const res = await call(org.owner, 'POST', '/api/v1/apps', {
      name,
      namespace: dest,
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      sync_policy: syncPolicy,
    });
    expect(res.status).toBe(201);
    return { path: `/api/v1/apps/${dest}/${name}`, head: await repo.head() };
  }

  it('holds an automated sync outside the org allow window, naming it, and syncs when the clock reaches it', async () => {
    const office = { name: 'office', kind: 'allow', schedule: '0 3 * * *', duration: '1h' };
    const bad = await call(org.owner, 'PUT', '/api/v1/delivery-windows', {
      windows: [{ ...office, timeZone: 'Mars/Olympus' }],
    });
    expect(bad).toMatchObject({ status: 422, body: { error: expect.stringMatching(/unknown time zone/) } });
    const denied = await call(alice, 'PUT', '/api/v1/delivery-windows', { windows: [office] });
    expect(denied.status).toBe(403);
    const put = await call(org.owner, 'PUT', '/api/v1/delivery-windows', { windows: [office] });
    expect(put).toMatchObject({ status: 200, body: { windows: [office] } });
    // The operator's clock: 15 s before the next opening.
    const opening = nextThreeAm(Date.now());
    offset = opening - 15_000 - Date.now();

    const { path, head } = await gitApp('auto', { automated: true });
    const held = await waitForApp(org.orgNs, 'auto', 'held by the window', (a) => {
      const s = a.status?.operationState;
      return s?.phase === 'Held' && (s.message ?? '').includes('allow window "office" (org');
    });
    expect(clock()).toBeLessThan(opening);
    expect(held.status?.operationState?.revision).toBe(head);
    expect(held.status?.revision).toBeUndefined();

    const synced = await waitForApp(
      org.orgNs,
      'auto',
      'synced at the opening',
      (a) => a.status?.revision === head && a.status?.syncStatus === 'Synced',
      45_000,
    );
    expect(clock()).toBeGreaterThanOrEqual(opening);
    expect(synced.status?.revision).toBe(head);
    // The API reads windows by the real clock, so only the listing is compared here.
    const view = await call(alice, 'GET', `${path}/windows`);
    expect(view).toMatchObject({ status: 200, body: { windows: [expect.objectContaining({ name: 'office' })] } });
    await call(org.owner, 'PUT', '/api/v1/delivery-windows', { windows: [] });
    offset = 0;
  });

  it('refuses a manual sync inside a deny window (409 naming it); a deployment:manage caller overrides once, audited', async () => {
    const always = { name: 'change-freeze', kind: 'deny', schedule: '* * * * *', duration: '1h' };
    const { path, head } = await gitApp('manual', { windows: [always] });
    await waitForApp(org.orgNs, 'manual', 'first report', (a) => a.status?.observedRevision === head);

    const view = await call(alice, 'GET', `${path}/windows`);
    expect(view).toMatchObject({
      status: 200,
      body: { open: false, reason: 'deny', window: { name: 'change-freeze', source: 'app' } },
    });
    const refused = await call(alice, 'POST', `${path}/sync`);
    expect(refused).toMatchObject({
      status: 409,
      body: { error: expect.stringMatching(/sync refused: inside deny window "change-freeze" \(app/) },
    });
    // A key whose ceiling is sync: deployment:sync without deployment:manage.
    const { key } = await mintKey(org.api, { cookie: alice.cookie }, { role: 'sync' });
    const notAllowed = await org.api.call<Json>('POST', `${path}/sync?override_windows=true`, { key });
    expect(notAllowed).toMatchObject({ status: 403 });

    const overridden = await call(org.owner, 'POST', `${path}/sync?override_windows=true`);
    expect(overridden.status).toBe(200);
    const id = overridden.body['operation_id'];
    const done = await waitForApp(org.orgNs, 'manual', 'override ran', (a) => {
      const s = a.status?.operationState;
      return s !== undefined && s.id === id && s.phase === 'Succeeded';
    });
    expect(done.status?.revision).toBe(head);
    const audit = await auditEntries(org.api, org.owner, 'app.sync', 'manual');
    expect(audit).toHaveLength(1);
    expect(audit[0]?.['details']).toMatchObject({
      operation_id: id,
      window_override: true,
      window: 'change-freeze',
      window_source: 'app',
    });
    // The override was for that request only: the next one is refused again.
    const again = await call(alice, 'POST', `${path}/sync`);
    expect(again.status).toBe(409);
  });
});
