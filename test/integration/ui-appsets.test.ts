/**
 * The AppSets page (issue 27 item 1): against a real `svc start` with its operator and a real git server, an AppSet
 * created through the API shows under AppSets in the navigation with the Apps it generated (linked, Synced and
 * Healthy) and the parameter set it could not generate; an AppSet with a rolling sync shows its steps and where
 * the rollout is; axe finds nothing. An AppSet is created from YAML on the page, its spec replaced (one more App; a
 * text naming another AppSet and a template the server refuses are shown as errors), and deleted with its Apps.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumRequirement, describeWith, type GitServer, startGitServer, waitUntil } from '../harness/index.ts';
import { configMapYaml, deleteNamespaces } from './operator-support.ts';
import { apiCall, openUi, signUpWithOrg, type UiSession } from './ui-support.ts';

describeWith(chromiumRequirement())('the AppSets page', () => {
  const hex = randomBytes(3).toString('hex');
  const slug = `uiaset-${hex}`;
  const envs = ['dev', 'prod'];
  const dests = [
    ...envs.flatMap((e) => [`uiaset-${e}-${hex}`, `uiaset-f${e}-${hex}`]),
    ...['qa', 'uat'].map((e) => `uiaset-${e}-${hex}`),
  ];
  let ui: UiSession;
  let page: Page;
  let git: GitServer;
  let repoURL = '';

  beforeAll(async () => {
    git = await startGitServer();
    const repo = await git.createRepo(`${slug}-web`, { 'm/cm.yaml': configMapYaml('web') });
    repoURL = repo.url;
    ui = await openUi(slug);
    page = ui.page;
    await page.goto(`${ui.svc.base}/apps`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signUpWithOrg(page, slug);
    const created = await apiCall(page, 'POST', '/api/v1/appsets', {
      name: 'web',
      generators: [{ list: { elements: [...envs.map((env) => ({ env })), { env: 'Not_A_Name' }] } }],
      template: {
        metadata: { name: 'web-{{ env }}' },
        spec: {
          source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
          destination: { namespace: `uiaset-{{ env }}-${hex}` },
          syncPolicy: { automated: true },
        },
      },
    });
    expect(created.status).toBe(201);
    // A rolling sync over two steps (issue 27 item 2): the page shows its steps and where it is.
    const rolling = await apiCall(page, 'POST', '/api/v1/appsets', {
      name: 'fleet',
      generators: [{ list: { elements: envs.map((env) => ({ env })) } }],
      template: {
        metadata: { name: 'fleet-{{ env }}', labels: { env: '{{ env }}' } },
        spec: {
          source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
          destination: { namespace: `uiaset-f{{ env }}-${hex}` },
        },
      },
      strategy: {
        rollingSync: {
          steps: [
            { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] },
            { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }], maxUnavailable: 1 },
          ],
        },
      },
    });
    expect(rolling.status).toBe(201);
  }, 240_000);

  afterAll(async () => {
    await ui?.close();
    await git?.stop();
    await deleteNamespaces(...dests);
  });

  it('lists the generated Apps with their status and the errors', async () => {
    await page.getByRole('link', { name: 'AppSets', exact: true }).click();
    const set = page.getByRole('region', { name: 'web', exact: true });
    const apps = set.getByRole('table', { name: 'Apps of web' });
    for (const name of ['web-dev', 'web-prod']) {
      const row = apps.locator(`tr[data-app="${name}"]`);
      await row.getByText('Healthy').waitFor({ timeout: 90_000 });
      await expect(row.getByText('Synced').count()).resolves.toBe(1);
    }
    await expect(set.getByRole('alert').textContent()).resolves.toContain('web-Not_A_Name');
    await ui.shot('appsets');
    await ui.accessible();
    await apps.getByRole('link', { name: 'web-dev' }).click();
    await page.getByRole('heading', { name: 'web-dev' }).waitFor();
  }, 150_000);

  it('shows a rolling sync: its steps, their Apps, and where it is', async () => {
    let last = '';
    await waitUntil(
      async () => {
        const res = await apiCall(page, 'GET', '/api/v1/appsets/fleet');
        last = JSON.stringify(res.body);
        return (res.body as { rollout?: { current_step?: number } }).rollout?.current_step === 0;
      },
      { what: `fleet rolled out (last: ${last})`, timeoutMs: 120_000, intervalMs: 1_000 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nlast: ${last}`);
    });
    await page.getByRole('link', { name: 'AppSets', exact: true }).click();
    const rollout = page.getByRole('region', { name: 'Rolling sync of fleet' });
    await rollout.getByText('every step done').waitFor({ timeout: 120_000 });
    await expect(rollout.locator('li[data-step="1"]').textContent()).resolves.toContain('fleet-dev');
    await expect(rollout.locator('li[data-step="2"]').textContent()).resolves.toContain('fleet-prod');
    await expect(rollout.locator('li[data-state="Done"]').count()).resolves.toBe(2);
    await ui.accessible();
  }, 150_000);

  it('creates an AppSet from YAML, replaces its spec, shows what is refused, and deletes it', async () => {
    const manifest = (envs: string[], name = 'text', appName = 'text-{{ env }}') =>
      [
        'apiVersion: cd.svc.space/v1alpha1',
        'kind: AppSet',
        `metadata: { name: ${name} }`,
        'spec:',
        `  generators: [{ list: { elements: [${envs.map((e) => `{ env: ${e} }`).join(', ')}] } }]`,
        '  template:',
        `    metadata: { name: "${appName}" }`,
        '    spec:',
        `      source: { type: Git, git: { repoURL: "${repoURL}", path: m } }`,
        `      destination: { namespace: "uiaset-{{ env }}-${hex}" }`,
        '      syncPolicy: { automated: true }',
      ].join('\n');
    await page.getByRole('link', { name: 'AppSets', exact: true }).click();
    await page.getByRole('button', { name: 'New AppSet' }).click();
    await page.getByLabel('AppSet', { exact: true }).fill(manifest(['qa']));
    await page.getByRole('button', { name: 'Create AppSet' }).click();
    const set = page.getByRole('region', { name: 'text', exact: true });
    await set.locator('tr[data-app="text-qa"]').getByText('Healthy').waitFor({ timeout: 90_000 });

    await set.getByRole('button', { name: 'Edit' }).click();
    const editor = page.getByRole('form', { name: 'Edit text' });
    await editor.getByLabel('AppSet', { exact: true }).fill(manifest(['qa', 'uat'], 'other'));
    await editor.getByRole('button', { name: 'Save AppSet' }).click();
    await editor.getByText('it names AppSet other, not text: an update never renames').waitFor();
    await editor.getByLabel('AppSet', { exact: true }).fill(manifest(['qa'], 'text', 'text-{{ nope }}'));
    await editor.getByRole('button', { name: 'Save AppSet' }).click();
    await editor.getByRole('alert').getByText('Could not save the AppSet').waitFor();
    expect(await editor.getByRole('alert').textContent()).toContain('nope');
    await editor.getByLabel('AppSet', { exact: true }).fill(manifest(['qa', 'uat']));
    await editor.getByRole('button', { name: 'Save AppSet' }).click();
    await editor.waitFor({ state: 'detached' });
    await set.locator('tr[data-app="text-uat"]').getByText('Healthy').waitFor({ timeout: 90_000 });
    await ui.accessible();

    await set.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^Delete AppSet/ })
      .click();
    await set.waitFor({ state: 'detached' });
    const left = await apiCall(page, 'GET', '/api/v1/appsets/text');
    expect(left.status).toBe(404);
  }, 240_000);
});
