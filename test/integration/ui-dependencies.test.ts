/**
 * The App page of an App waiting for its dependencies (spec.dependsOn): against a real `svc start` with its operator
 * and a real git server, an App depending on a Degraded one shows which dependency blocks it and why, and stays
 * unsynced; the org's dependency graph (/apps/graph) draws the edge and the blocked App with its reason, and its node
 * opens the App.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumRequirement, describeWith, type GitServer, startGitServer } from '../harness/index.ts';
import { configMapYaml, deleteNamespaces, stuckDeploymentYaml } from './operator-support.ts';
import { apiCall, openUi, signUpWithOrg, type UiSession } from './ui-support.ts';

describeWith(chromiumRequirement())('the App page of a blocked App', () => {
  const hex = randomBytes(3).toString('hex');
  const slug = `uidep-${hex}`;
  const dests = [`uidep-db-${hex}`, `uidep-api-${hex}`];
  let ui: UiSession;
  let page: Page;
  let git: GitServer;

  beforeAll(async () => {
    git = await startGitServer();
    const db = await git.createRepo(`${slug}-db`, { 'm/db.yaml': stuckDeploymentYaml('db') });
    const api = await git.createRepo(`${slug}-api`, { 'm/a.yaml': configMapYaml('a') });
    ui = await openUi(slug);
    page = ui.page;
    await page.goto(`${ui.svc.base}/apps`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signUpWithOrg(page, slug);
    for (const [name, repo, namespace, extra] of [
      ['db', db, dests[0], {}],
      ['api', api, dests[1], { depends_on: [{ name: 'db' }] }],
    ] as const) {
      const created = await apiCall(page, 'POST', '/api/v1/apps', {
        name,
        namespace,
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        sync_policy: { automated: true },
        ...extra,
      });
      expect(created.status).toBe(201);
    }
  }, 240_000);

  afterAll(async () => {
    await ui?.close();
    await git?.stop();
    await deleteNamespaces(...dests);
  });

  it('names the dependency that blocks it and why', async () => {
    await page.goto(`${ui.svc.base}/apps/${dests[1]}/api`);
    const blocked = page.getByRole('region', { name: 'Blocked by' });
    await blocked.getByText(/db: Degraded: apps\/Deployment db: 0\/1 ready/).waitFor({ timeout: 90_000 });
    await expect(blocked.getByTestId('blocked-by').count()).resolves.toBe(1);
    await expect(page.getByTestId('sync-status').textContent()).resolves.not.toContain('Synced');
    await ui.shot('app-blocked');
    await ui.accessible();
  }, 120_000);

  it('draws the dependency graph: the edge, the blocked App with its reason, a node that opens its App', async () => {
    await page.goto(`${ui.svc.base}/apps`);
    await page.getByRole('link', { name: 'Dependencies' }).click();
    const graph = page.getByRole('region', { name: 'Dependency graph' });
    await graph.waitFor({ timeout: 30_000 });
    await expect(graph.locator('[data-edge="db->api"]').count()).resolves.toBe(1);
    // The edge holds api now (db is Degraded): drawn as blocking.
    await graph.locator('[data-edge="db->api"][data-blocking="true"]').waitFor({ state: 'attached' });
    const api = graph.locator('[data-node="api"]');
    await expect(api.getAttribute('data-blocked')).resolves.toBe('true');
    await expect(api.getByTestId('graph-blocked').textContent()).resolves.toMatch(
      /Blocked by db: Degraded: apps\/Deployment db: 0\/1 ready/,
    );
    const db = graph.locator('[data-node="db"]');
    await expect(db.textContent()).resolves.toContain('Degraded');
    await expect(db.getAttribute('data-blocked')).resolves.toBeNull();
    // db is left of api (a column by depth).
    const [dbBox, apiBox] = [await db.boundingBox(), await api.boundingBox()];
    expect(dbBox && apiBox && dbBox.x + dbBox.width < apiBox.x).toBe(true);
    await ui.shot('dependencies');
    await ui.accessible();
    await api.click();
    await page.waitForURL(`**/apps/${dests[1]}/api`);
    await page.getByRole('region', { name: 'Blocked by' }).waitFor();
  }, 120_000);
});
