/**
 * The Repositories page and the New app form's Helm chart source in a browser (issue 24), against `svc start` and
 * an HTTPS chart repository with basic auth: a repository is saved only once its settings passed a test (a wrong
 * password fails the test naming the cause and keeps Create disabled); its page lists the charts and, after an App
 * is created from the chart picker, the App that uses it. The password is on no page.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ChartRepo, chromiumRequirement, describeWith, guestbookChart, startChartRepo } from '../harness/index.ts';
import { deleteNamespaces, waitForApp } from './operator-support.ts';
import { openUi, signUpWithOrg, type UiSession } from './ui-support.ts';

describeWith(chromiumRequirement())('the repositories page and Helm chart Apps in a browser', () => {
  const slug = `uirep-${randomBytes(3).toString('hex')}`;
  const PASSWORD = `chart-pw-${randomBytes(6).toString('hex')}`;
  const namespace = `shop-${slug}`;
  let ui: UiSession;
  let page: Page;
  let charts: ChartRepo;

  beforeAll(async () => {
    [ui, charts] = await Promise.all([
      openUi(slug),
      startChartRepo({ basicAuth: { user: 'ada', password: PASSWORD } }),
    ]);
    await charts.publish('guestbook', guestbookChart('1.0.0'));
    await charts.publish('guestbook', guestbookChart('1.1.0'));
    page = ui.page;
    await page.goto(`${ui.svc.base}/repositories`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signUpWithOrg(page, slug);
  }, 240_000);

  afterAll(async () => {
    await ui?.close();
    await charts?.stop();
    await deleteNamespaces(namespace);
  });

  it('tests first, then saves a Helm repository; its page lists the charts', async () => {
    await page.getByRole('link', { name: 'Repositories' }).click();
    await page.getByText('No repositories yet').waitFor();
    await page.getByRole('link', { name: 'New repository' }).click();
    await page.getByLabel('Name', { exact: true }).fill('charts');
    await page.getByLabel('Type').selectOption('helm');
    await page.getByLabel('URL').fill(charts.url);
    await page.getByLabel('User name').fill('ada');
    await page.getByLabel('Password or token').fill('not-the-password');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page
      .getByTestId('repository-test')
      .getByText(/^Test failed \(auth\): .+401/)
      .waitFor();
    expect(await page.getByRole('button', { name: 'Create repository' }).isDisabled()).toBe(true);
    await page.getByLabel('Password or token').fill(PASSWORD);
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page
      .getByTestId('repository-test')
      .getByText(/with credentials\), 1 found/)
      .waitFor();
    await ui.accessible();
    await page.getByRole('button', { name: 'Create repository' }).click();
    await page.getByRole('heading', { name: 'charts', exact: true }).waitFor();
    await page.getByRole('list', { name: 'Charts' }).getByText('1.1.0, 1.0.0').waitFor();
    await ui.shot('repository');
    expect(await page.content()).not.toContain(PASSWORD);
  });

  it('creates an App from the chart picker, which then shows as the repository’s user', async () => {
    await page.goto(`${ui.svc.base}/apps/new`);
    await page.getByLabel('Name', { exact: true }).fill('guestbook');
    await page.getByLabel('Destination namespace').fill(namespace);
    await page.getByLabel('Source type').selectOption('HelmChart');
    await page.getByLabel('Chart repository').selectOption({ label: `charts (${charts.url})` });
    // Until the repository's charts arrive the field is free text; the picker replaces it once they are listed.
    await page.getByRole('combobox', { name: 'Chart', exact: true }).selectOption('guestbook');
    await page.getByLabel('Version').fill('1.0.x');
    await page.getByLabel('Sync automatically when upstream changes').check();
    await page.getByLabel('Roll back automatically after Degraded for').fill('10m');
    await ui.shot('app-create-helm-chart');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByRole('heading', { name: 'guestbook' }).first().waitFor();
    const created = await waitForApp(`org-${slug}`, 'guestbook', 'guestbook at 1.0.0', (a) =>
      (a.status?.revision ?? '').startsWith('guestbook@1.0.0@'),
    );
    expect(created.spec.syncPolicy?.autoRollback).toEqual({ onDegradedFor: '10m' });
    await page.goto(`${ui.svc.base}/repositories`);
    await page.getByRole('link', { name: 'charts' }).click();
    await page.getByRole('list', { name: 'References' }).getByText('guestbook (repositoryRef)').waitFor();
    expect(ui.problems).toEqual([]);
  });
});
