/**
 * The Catalog page in a browser (issue 27 item 4), against `svc start` and a real chart repository: the org's
 * templates are listed, and a developer makes an App from one by filling the form drawn from the template's params
 * schema; params the schema refuses show the server's message, and the App made deploys with the params.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ChartRepo, chromiumRequirement, describeWith, guestbookChart, startChartRepo } from '../harness/index.ts';
import { deleteNamespaces, getObject, waitForApp } from './operator-support.ts';
import { apiCall, openUi, signUpWithOrg, type UiSession } from './ui-support.ts';

describeWith(chromiumRequirement())('the Catalog page in a browser', () => {
  const slug = `uicat-${randomBytes(3).toString('hex')}`;
  const namespace = `shop-${slug}`;
  let ui: UiSession;
  let page: Page;
  let charts: ChartRepo;

  beforeAll(async () => {
    [ui, charts] = await Promise.all([openUi(slug), startChartRepo()]);
    await charts.publish('guestbook', guestbookChart('1.0.0'));
    page = ui.page;
    await page.goto(`${ui.svc.base}/catalog`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signUpWithOrg(page, slug);
  }, 240_000);

  afterAll(async () => {
    await ui?.close();
    await charts?.stop();
    await deleteNamespaces(namespace);
  });

  it('lists the templates and makes an App from one through the form drawn from its params schema', async () => {
    const written = await apiCall(page, 'POST', '/api/v1/catalog', {
      name: 'guestbook',
      description: 'A guestbook with a greeting',
      source: {
        type: 'HelmChart',
        helmChart: { repoURL: charts.url, chart: 'guestbook', values: { message: 'hello {{ greeting }}' } },
      },
      params_schema: {
        type: 'object',
        required: ['greeting'],
        properties: { greeting: { type: 'string', description: 'who is greeted', maxLength: 10 } },
      },
    });
    expect(written.status).toBe(201);
    await page.getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('table', { name: 'Templates' }).getByText('guestbook', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Use guestbook' }).click();
    await page.getByLabel('Name', { exact: true }).fill('guestbook');
    await page.getByLabel('Namespace').fill(namespace);
    await page.getByLabel('greeting').fill('far too long a greeting');
    await page.getByRole('button', { name: 'Create App' }).click();
    await page.getByText(/params\.greeting must NOT have more than 10 characters/).waitFor();
    await page.getByLabel('greeting').fill('world');
    await page.getByLabel(/Sync automatically/).check();
    await ui.accessible();
    await ui.shot('catalog');
    await page.getByRole('button', { name: 'Create App' }).click();
    await page.getByRole('heading', { name: 'guestbook' }).first().waitFor();
    await waitForApp(`org-${slug}`, 'guestbook', 'guestbook synced', (a) =>
      (a.status?.revision ?? '').startsWith('guestbook@v1/guestbook@1.0.0@'),
    );
    const cm = (await getObject('v1', 'ConfigMap', namespace, 'guestbook-settings')) as unknown as {
      data: Record<string, string>;
    };
    expect(cm.data['message']).toBe('hello world');
    expect(ui.problems).toEqual([]);
  });
});
