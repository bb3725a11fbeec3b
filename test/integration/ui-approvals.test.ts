/**
 * The App page's approvals panel against a real `svc start` with its operator: a sync the signed-in user requested
 * is held for approval; the page shows how many approvals it has and needs and who may approve (the App's policy),
 * and the user's own Approve is refused with the server's reason.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumRequirement, describeWith, type GitServer, startGitServer } from '../harness/index.ts';
import { configMapYaml, deleteNamespaces } from './operator-support.ts';
import { apiCall, openUi, signUpWithOrg, type UiSession } from './ui-support.ts';

describeWith(chromiumRequirement())('the App page shows the approvals of a held sync', () => {
  const hex = randomBytes(3).toString('hex');
  const slug = `uiappr-${hex}`;
  const dest = `uiappr-${hex}`;
  let ui: UiSession;
  let page: Page;
  let git: GitServer;

  beforeAll(async () => {
    git = await startGitServer();
    const repo = await git.createRepo(`${slug}-web`, { 'm/a.yaml': configMapYaml('a') });
    ui = await openUi(slug);
    page = ui.page;
    await page.goto(`${ui.svc.base}/apps`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signUpWithOrg(page, slug);
    const created = await apiCall(page, 'POST', '/api/v1/apps', {
      name: 'web',
      namespace: dest,
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      sync_policy: { requiresApproval: true, approval: { count: 2, users: ['lead@example.test'], teams: ['sre'] } },
    });
    expect(created.status).toBe(201);
  }, 240_000);

  afterAll(async () => {
    await ui?.close();
    await git?.stop();
    await deleteNamespaces(dest);
  });

  it('lists approvals and who may approve, and shows why a self-approval is refused', async () => {
    await page.goto(`${ui.svc.base}/apps/${dest}/web`);
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Approvals' });
    await panel.getByText('Approvals: 0 of 2').waitFor({ timeout: 60_000 });
    await panel
      .getByText(/May approve: teams sre; users lead@example\.test \(app policy; never the requester\)/)
      .waitFor();
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page
      .getByRole('alert')
      .getByText(/the requester may not approve it/)
      .waitFor();
  });
});
