/**
 * The Import page (issue 28 item 4): against a real `svc start` and a real git server, an Argo CD Application pasted
 * as YAML is reviewed (what it becomes, field by field, and the summary; nothing created), then imported: the page
 * says it was created and the App list shows the App; the App's page shows the pending take-over and where it came
 * from, and its Confirm button ends it (audited). axe finds nothing on either page.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumRequirement, describeWith, type GitServer, startGitServer } from '../harness/index.ts';
import { configMapYaml, deleteNamespaces } from './operator-support.ts';
import { apiCall, openUi, signUpWithOrg, type UiSession } from './ui-support.ts';

describeWith(chromiumRequirement())('the Import page', () => {
  const hex = randomBytes(3).toString('hex');
  const slug = `uiimp-${hex}`;
  const dest = `uiimp-guestbook-${hex}`;
  let ui: UiSession;
  let page: Page;
  let git: GitServer;
  let repoURL = '';

  beforeAll(async () => {
    git = await startGitServer();
    repoURL = (await git.createRepo(`${slug}-apps`, { 'guestbook/cm.yaml': configMapYaml('guestbook') })).url;
    ui = await openUi(slug);
    page = ui.page;
    await page.goto(`${ui.svc.base}/apps`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signUpWithOrg(page, slug);
  }, 240_000);

  afterAll(async () => {
    await ui?.close();
    await git?.stop();
    await deleteNamespaces(dest);
  });

  it('reviews a pasted Argo CD Application, imports it, and the App list shows it', async () => {
    const application = [
      'apiVersion: argoproj.io/v1alpha1',
      'kind: Application',
      'metadata:',
      '  name: guestbook',
      '  namespace: argocd',
      'spec:',
      '  project: default',
      '  source:',
      `    repoURL: ${repoURL}`,
      '    targetRevision: main',
      '    path: guestbook',
      '  destination:',
      '    server: https://kubernetes.default.svc',
      `    namespace: ${dest}`,
      '  syncPolicy:',
      '    automated: { prune: true }',
      '    syncOptions: [CreateNamespace=true]',
    ].join('\n');
    await page.getByRole('link', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Import' }).waitFor();
    await page.getByLabel('Objects').fill(application);
    await page.getByRole('button', { name: 'Review' }).click();
    const review = page.getByRole('table', { name: 'Import review' });
    const row = review.locator('tr[data-object="guestbook"]');
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('App guestbook');
    await expect(row.textContent()).resolves.toMatch(/syncOptions\[CreateNamespace=true\]\s*equivalent/);
    await expect(page.getByTestId('import-summary').textContent()).resolves.toContain('1 apps');
    await expect(page.getByTestId('import-summary').textContent()).resolves.toContain('nothing created yet');
    const before = await apiCall<{ apps: unknown[] }>(page, 'GET', '/api/v1/apps');
    expect(before.body.apps).toEqual([]);
    await ui.shot('import');
    await ui.accessible();

    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const result = page.getByRole('table', { name: 'Import result' });
    await result.locator('tr[data-object="guestbook"]').getByText('created').waitFor();
    await expect(page.getByTestId('import-summary').textContent()).resolves.toContain('created 1, failed 0');
    await page.getByRole('link', { name: 'See the Apps' }).click();
    await page.getByRole('link', { name: 'guestbook', exact: true }).click();

    // The App page says the take-over is pending and where it came from; confirming ends it.
    const pending = page.getByRole('region', { name: 'Import pending' });
    await pending.waitFor();
    await expect(pending.textContent()).resolves.toContain('Imported from Application guestbook (argocd)');
    const view = await apiCall<{ import_pending: unknown }>(page, 'GET', `/api/v1/apps/${dest}/guestbook`);
    expect(view.body.import_pending).toEqual({
      api_version: 'argoproj.io/v1alpha1',
      kind: 'Application',
      namespace: 'argocd',
      name: 'guestbook',
      cluster: '',
    });
    await ui.shot('app-import-pending');
    await ui.accessible();
    await pending.getByRole('button', { name: 'Confirm take-over' }).click();
    await pending.waitFor({ state: 'detached' });
    const after = await apiCall<{ import_pending: unknown }>(page, 'GET', `/api/v1/apps/${dest}/guestbook`);
    expect(after.body.import_pending).toBeNull();
    const audit = await apiCall<{ entries: Array<{ action: string; resource_name: string }> }>(
      page,
      'GET',
      '/api/v1/audit',
    );
    expect(audit.body.entries.filter((e) => e.action === 'app.import.confirm').map((e) => e.resource_name)).toEqual([
      'guestbook',
    ]);
    expect(ui.problems).toEqual([]);
  }, 150_000);
});
