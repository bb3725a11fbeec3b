/**
 * The registries, teams, webhooks and incidents pages of the web UI in a real browser against a real `svc start`:
 * a real htpasswd registry (tested, edited with the password kept, its notification token rotated, its deletion
 * refused while an App names it), a team with a member and a role binding, a webhook whose test delivery reaches a
 * real receiver signed with the secret the page showed once, and incidents (one detected by svc for an App whose
 * sync really fails, one reported by an emitter) whose remediations are approved and rejected on the page. Every
 * change is checked through the API; every refusal shows the server's own `{"error"}`.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type ChatSink,
  chromiumRequirement,
  describeWith,
  type Registry,
  startChatSink,
  startRegistry,
} from '../harness/index.ts';
import { apiCall, openUi, serverError, signUpWithOrg, type UiSession } from './ui-support.ts';
import { ReceiverVerifier } from './webhook-verify.ts';

type Json = Record<string, unknown>;
interface RemediationJson {
  id: string;
  action: string;
  state: string;
  operation_id: string | null;
  reason: string | null;
}
interface IncidentJson {
  id: string;
  cause: string;
  source: string;
  state: string;
  acknowledged_at: string | null;
  remediations: RemediationJson[];
  timeline: { kind: string; type?: string }[];
}

describeWith(chromiumRequirement())('the registries, teams, webhooks and incidents pages in a browser', () => {
  const slug = `uio-${randomBytes(3).toString('hex')}`;
  const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
  const namespace = `shop-${slug}`;
  let ui: UiSession;
  let page: Page;
  let registry: Registry;
  let sink: ChatSink;
  let registryId = '';
  const alert = (title: string) => page.getByRole('alert').filter({ hasText: title });
  const api = <T = Json>(method: string, path: string, body?: unknown) => apiCall<T>(page, method, path, body);

  beforeAll(async () => {
    [ui, registry, sink] = await Promise.all([
      openUi(slug),
      startRegistry({ htpasswd: { user: 'ada', password: PASSWORD } }),
      startChatSink(),
    ]);
    page = ui.page;
    await page.goto(`${ui.svc.base}/registries`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signUpWithOrg(page, slug);
  }, 240_000);

  afterAll(async () => {
    await ui?.close();
    await Promise.all([registry?.stop(), sink?.stop()]);
  });

  it('creates a registry (token shown once), tests it, keeps a blank password, rotates the token', async () => {
    await page.getByRole('link', { name: 'Registries' }).click();
    await page.getByText('No registries yet').waitFor();
    await page.getByRole('link', { name: 'New registry' }).click();
    await page.getByLabel('Name', { exact: true }).fill('local');
    await page.getByLabel('Host').fill(`http://${registry.host}/v2`);
    await page.getByLabel('Plain http (insecure; refused in production mode)').check();
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Create registry' }).click();
    const badHost = await serverError(page, 'POST', '/api/v1/registries', {
      name: 'local',
      host: `http://${registry.host}/v2`,
      insecure: true,
      username: 'ada',
      password: 'wrong',
    });
    await alert('Could not create the registry').getByText(badHost, { exact: true }).waitFor();

    await page.getByLabel('Host').fill(registry.host);
    await page.getByRole('button', { name: 'Test settings' }).click();
    await page
      .getByTestId('registry-test')
      .getByText(/^Test failed \(auth\): .+/)
      .waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Test settings' }).click();
    await page
      .getByTestId('registry-test')
      .getByText(/^Connected to .+ \(authenticated\) in \d+ ms/)
      .waitFor();
    await ui.shot('registry-create');
    await ui.accessible();
    await page.getByRole('button', { name: 'Create registry' }).click();
    const token = (await page.getByTestId('notification-token').textContent()) ?? '';
    expect(token).toMatch(/^svcrn_/);
    await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
    await page.getByRole('heading', { name: 'local', exact: true }).waitFor();
    registryId = /\/registries\/(reg_[^/?]+)/.exec(page.url())?.[1] ?? '';
    expect(registryId).not.toBe('');
    // Write-only: the password and the token are on no page once the dialog closed.
    expect(await page.content()).not.toContain(PASSWORD);
    expect(await page.content()).not.toContain(token);
    expect((await api('GET', `/api/v1/registries/${registryId}`)).body).toMatchObject({
      name: 'local',
      host: registry.host,
      insecure: true,
      username: 'ada',
      has_password: true,
      status: 'untested',
    });

    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page
      .getByTestId('registry-test')
      .getByText(/^Connected to .+ \(authenticated\)/)
      .waitFor();
    await page.getByText('connected', { exact: true }).first().waitFor();

    // A saved change with the password blank keeps the stored one: the next test still authenticates.
    await page.getByLabel('CA certificates').fill('');
    await page.getByLabel('Name', { exact: true }).fill('local-2');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('heading', { name: 'local-2', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page
      .getByTestId('registry-test')
      .getByText(/^Connected to .+ \(authenticated\)/)
      .waitFor();
    expect((await api('GET', `/api/v1/registries/${registryId}`)).body).toMatchObject({
      name: 'local-2',
      has_password: true,
      status: 'connected',
    });
    await page.getByLabel('Name', { exact: true }).fill('local');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('heading', { name: 'local', exact: true }).waitFor();

    await page.getByRole('button', { name: 'New notification token' }).click();
    const rotated = (await page.getByTestId('notification-token').textContent()) ?? '';
    expect(rotated).toMatch(/^svcrn_/);
    expect(rotated).not.toBe(token);
    await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
    await ui.shot('registry');
    await ui.accessible();
    // The rotated token is the one the notification endpoint takes now; the first one is refused.
    const notify = (bearer: string) =>
      page.evaluate(
        async ([url, t]) =>
          (
            await fetch(url, {
              method: 'POST',
              headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
              body: JSON.stringify({ events: [] }),
            })
          ).status,
        [`/api/v1/registries/${registryId}/notifications`, bearer] as [string, string],
      );
    expect(await notify(token)).toBe(401);
    expect(await notify(rotated)).toBe(200);
  });

  it('lists the registry; deleting it while an App names it shows the 409 naming the App', async () => {
    const created = await api('POST', '/api/v1/apps', {
      name: 'shop',
      namespace,
      source: { type: 'Image', image: { registryRef: 'local', repository: 'ada/shop', tag: 'missing' } },
    });
    expect(created.status).toBe(201);
    await page.getByRole('link', { name: 'Registries' }).click();
    const row = page.locator('[data-registry="local"]');
    await row.getByText('connected', { exact: true }).waitFor();
    await row.getByText('ada (password set)').waitFor();
    await ui.shot('registries');
    await ui.accessible();
    await row.getByRole('link', { name: 'local' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete registry' }).click();
    const inUse = await serverError(page, 'DELETE', `/api/v1/registries/${registryId}`);
    expect(inUse).toContain('shop');
    await page.getByRole('dialog').getByRole('alert').getByText(inUse, { exact: true }).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect((await api('GET', `/api/v1/registries/${registryId}`)).status).toBe(200);
  });

  it('creates a team, refuses a taken name, renames it, adds a member and a role binding, deletes it', async () => {
    await page.getByRole('link', { name: 'Teams' }).click();
    await page.getByRole('table', { name: 'Teams' }).waitFor();
    await page.getByLabel('New team name').fill('payments');
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByRole('heading', { name: 'payments', exact: true }).waitFor();
    const teamId = /\/teams\/([^/?]+)/.exec(page.url())?.[1] ?? '';
    await page.getByRole('link', { name: 'Teams' }).click();
    await page.locator('[data-team="payments"]').waitFor();
    await page.getByLabel('New team name').fill('payments');
    await page.getByRole('button', { name: 'Create team' }).click();
    await alert('Could not create the team')
      .getByText(await serverError(page, 'POST', '/api/v1/teams', { name: 'payments' }), { exact: true })
      .waitFor();
    await ui.shot('teams');
    await ui.accessible();

    await page.locator('[data-team="payments"]').getByRole('link', { name: 'payments' }).click();
    await page.getByLabel('Team name').fill('billing');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { name: 'billing', exact: true }).waitFor();
    await page.getByLabel('Org member to add').selectOption({ label: `${slug}@example.test` });
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('table', { name: 'Team members' }).getByText(`${slug}@example.test`).waitFor();
    await page.getByLabel('Scope', { exact: true }).selectOption('deployment');
    await page.getByLabel('Scope id', { exact: true }).fill(`/${namespace}`);
    await page.getByLabel('Level').selectOption('sync');
    await page.getByRole('button', { name: 'Grant' }).click();
    await page.getByRole('table', { name: 'Team role bindings' }).getByText(`deployment /${namespace}`).waitFor();
    const team = await api<{ name: string; members: { email: string }[]; bindings: Json[] }>(
      'GET',
      `/api/v1/teams/${teamId}`,
    );
    expect(team.body).toMatchObject({
      name: 'billing',
      members: [{ email: `${slug}@example.test` }],
      bindings: [{ scope: 'deployment', scope_id: `/${namespace}`, level: 'sync' }],
    });
    await ui.shot('team');
    await ui.accessible();

    // A binding the server refuses (a cluster scope needs a cluster name) shows its message.
    await page.getByLabel('Scope', { exact: true }).selectOption('cluster');
    await page.getByLabel('Scope id', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Grant' }).click();
    const refused = await serverError(page, 'POST', '/api/v1/role-bindings', {
      subject_type: 'team',
      subject_id: teamId,
      scope: 'cluster',
      scope_id: '',
      level: 'read',
    });
    await alert('Could not grant').getByText(refused, { exact: true }).waitFor();

    await page.getByRole('button', { name: `Remove sync at deployment /${namespace}` }).click();
    await page.getByText('No role bindings').waitFor();
    await page.getByRole('button', { name: `Remove ${slug}@example.test from the team` }).click();
    await page.getByText('No members yet').waitFor();
    expect((await api('GET', `/api/v1/teams/${teamId}`)).body).toMatchObject({ members: [], bindings: [] });
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete team' }).click();
    await page.getByRole('table', { name: 'Teams' }).waitFor();
    expect(await page.locator('[data-team="billing"]').count()).toBe(0);
    expect((await api('GET', `/api/v1/teams/${teamId}`)).status).toBe(404);
  });

  it('creates a webhook (secret shown once), sends a signed test to a real receiver, shows the delivery', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No webhooks yet').waitFor();
    await page.getByRole('link', { name: 'New webhook' }).click();
    await page.getByLabel('URL').fill('http://169.254.169.254/latest');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const refused = await serverError(page, 'POST', '/api/v1/webhooks', {
      url: 'http://169.254.169.254/latest',
      events: ['incident.opened', 'incident.resolved'],
    });
    await alert('Could not create the webhook').getByText(refused, { exact: true }).waitFor();

    await page.getByLabel('URL').fill(sink.url);
    await page.getByLabel('Name').fill('oncall');
    await page.getByLabel('remediation.proposed').check();
    await page.getByLabel('incident.resolved').uncheck();
    await ui.shot('webhook-create');
    await ui.accessible();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
    await page.getByRole('heading', { name: 'oncall', exact: true }).waitFor();
    const webhookId = /\/webhooks\/(whk_[^/?]+)/.exec(page.url())?.[1] ?? '';
    expect(await page.content()).not.toContain(secret);
    expect((await api('GET', `/api/v1/webhooks/${webhookId}`)).body).toMatchObject({
      name: 'oncall',
      url: sink.url,
      events: ['incident.opened', 'remediation.proposed'],
    });

    await page.getByRole('button', { name: 'Send test' }).click();
    await page
      .getByTestId('webhook-test')
      .getByText(/^Test delivery delivered: HTTP 200 in \d+ ms/)
      .waitFor();
    const received = await sink.waitFor((r) => r.headers['x-svc-event'] === 'webhook.test');
    expect(new ReceiverVerifier(secret).verify(received.headers['x-svc-signature'], received.body)).toBe('ok');
    const log = page.getByRole('table', { name: 'Deliveries' });
    const row = log.locator(`[data-delivery="${received.headers['x-svc-delivery']}"]`);
    await row.getByText('webhook.test').waitFor();
    await row.getByText('delivered', { exact: true }).waitFor();
    await row.getByRole('cell', { name: '200', exact: true }).waitFor();
    await ui.shot('webhook');
    await ui.accessible();

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.locator('[data-webhook="oncall"]').getByText('incident.opened, remediation.proposed').waitFor();
    await ui.shot('webhooks');
  });

  it('lists a detected and a reported incident, filters them, acknowledges, approves and rejects remediations', async () => {
    // The App's image does not exist: its sync fails for real and svc's detector opens an incident.
    expect((await api('POST', `/api/v1/apps/${namespace}/shop/sync`)).status).toBe(200);
    const reported = await api<IncidentJson>('POST', '/api/v1/incidents', {
      title: 'shop checkout errors',
      message: 'error rate 12% from the load balancer',
      app: 'shop',
      severity: 'critical',
    });
    expect(reported.status).toBe(201);
    const incidentId = reported.body.id;

    await page.getByRole('link', { name: 'Incidents' }).click();
    const list = page.getByRole('table', { name: 'Incidents' });
    await list.locator(`[data-incident="${incidentId}"]`).waitFor();
    // svc's own incident about the App appears beside the reported one (the list refreshes on navigation).
    const detected = async () =>
      (await api<{ incidents: IncidentJson[] }>('GET', '/api/v1/incidents?app=shop&state=open')).body.incidents.find(
        (i) => i.source === 'detector',
      );
    await expect.poll(detected, { timeout: 90_000, interval: 1000 }).toBeDefined();
    const detectedIncident = (await detected()) as IncidentJson;
    await page.reload();
    await list.locator(`[data-incident="${detectedIncident.id}"]`).waitFor();
    await ui.shot('incidents');
    await ui.accessible();

    // Filters live in the URL and are answered by the server.
    await page.getByLabel('Cause').fill('External');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/cause=External/);
    await expect.poll(() => list.locator('[data-incident]').count()).toBe(1);
    await list.locator(`[data-incident="${incidentId}"]`).waitFor();
    await page.getByLabel('Cause').fill(detectedIncident.cause);
    await page.getByRole('button', { name: 'Filter' }).click();
    await list.locator(`[data-incident="${detectedIncident.id}"]`).waitFor();
    await expect.poll(() => list.locator(`[data-incident="${incidentId}"]`).count()).toBe(0);
    await page.getByLabel('State').selectOption('resolved');
    await page.getByText('No incidents match').waitFor();

    // The App's page links to its open incidents.
    await page.goto(`${ui.svc.base}/apps/${namespace}/shop`);
    await page.getByRole('link', { name: /^\d+ open incidents?$/ }).click();
    await page.waitForURL(/\/incidents\?.*app=shop/);
    await list.getByRole('link', { name: 'shop checkout errors' }).click();
    await page.getByRole('heading', { name: 'shop checkout errors' }).waitFor();
    await page.getByRole('list', { name: 'Timeline' }).getByText('incident.opened').first().waitFor();

    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await expect
      .poll(async () => (await api<IncidentJson>('GET', `/api/v1/incidents/${incidentId}`)).body.acknowledged_at)
      .not.toBeNull();
    await expect.poll(() => page.getByRole('button', { name: 'Acknowledge' }).count()).toBe(0);

    // Rejected behind the page's back: approving it on the (stale) page shows the server's 409.
    const { remediations } = (await api<IncidentJson>('GET', `/api/v1/incidents/${incidentId}`)).body;
    const restart = remediations.find((r) => r.action === 'restart');
    const resync = remediations.find((r) => r.action === 'resync');
    if (!restart || !resync) throw new Error(`expected restart and resync, got ${JSON.stringify(remediations)}`);
    await page.getByRole('button', { name: 'Approve restart' }).waitFor();
    await ui.shot('incident');
    await ui.accessible();
    expect((await api('POST', `/api/v1/remediations/${restart.id}/reject`, { reason: 'elsewhere' })).status).toBe(200);
    await page.getByRole('button', { name: 'Approve restart' }).click();
    const decided = await serverError(page, 'POST', `/api/v1/remediations/${restart.id}/approve`);
    await alert('Could not approve').getByText(decided, { exact: true }).waitFor();
    await page.locator('[data-remediation="restart"]').getByText('rejected', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Approve resync' }).click();
    await page
      .locator('[data-remediation="resync"]')
      .getByText(/^(approved|executed)$/)
      .waitFor();
    const approved = await api<RemediationJson>('GET', `/api/v1/remediations/${resync.id}`);
    expect(approved.body.state).toMatch(/^(approved|executed)$/);
    expect(approved.body.operation_id).toEqual(expect.any(String));
    await page
      .locator('[data-remediation="resync"]')
      .getByRole('link', { name: /^operation / })
      .waitFor();

    // The detected incident's proposal is rejected through the dialog, with a reason.
    await page.goto(`${ui.svc.base}/incidents/${detectedIncident.id}`);
    await page.getByRole('heading', { name: /shop/ }).waitFor();
    // A failing sync (SyncFailed) gets a re-sync proposed (a Stalled App would get none).
    expect(detectedIncident.cause).toBe('SyncFailed');
    const proposal = (
      await api<IncidentJson>('GET', `/api/v1/incidents/${detectedIncident.id}`)
    ).body.remediations.find((r) => r.state === 'proposed');
    if (proposal?.action !== 'resync') throw new Error(`expected a resync proposed, got ${JSON.stringify(proposal)}`);
    await page.getByRole('button', { name: 'Reject resync' }).click();
    await page.getByRole('dialog').getByLabel('Reason').fill('fix the tag instead');
    await page.getByRole('dialog').getByRole('button', { name: 'Reject remediation' }).click();
    await page.locator('[data-remediation="resync"]').getByText('fix the tag instead').waitFor();
    expect((await api<RemediationJson>('GET', `/api/v1/remediations/${proposal.id}`)).body).toMatchObject({
      state: 'rejected',
      reason: 'fix the tag instead',
    });
    // The webhook subscribed to incident.opened received the reported incident.
    await sink.waitFor((r) => r.headers['x-svc-event'] === 'incident.opened' && r.body.includes(incidentId));
    expect(ui.problems).toEqual([]);
  });
});
