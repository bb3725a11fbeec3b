/**
 * The clusters, secret-store and access pages of the web UI in a real browser against a real `svc start`: the
 * management plane registered as a cluster (tested first, then probed, narrowed, removed), a real OpenBao behind a
 * secret store (tested unsaved and saved, a wrong token shown as the server's auth error), an age store, and a
 * can-i check. Credentials are typed in and never shown back; every refusal shows the server's own `{"error"}`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { generateX25519Identity } from 'age-encryption';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { chromiumRequirement, describeWith, type OpenBao, startOpenBao } from '../harness/index.ts';
import { openUi, serverError, signUpWithOrg, type UiSession } from './ui-support.ts';

describeWith(chromiumRequirement())('the clusters, secret stores and access pages in a browser', () => {
  const slug = `uir-${randomBytes(3).toString('hex')}`;
  const kubeconfig = readFileSync(inject('mgmtKubeconfig'), 'utf8');
  const serverURL = /server: (\S+)/.exec(kubeconfig)?.[1] ?? 'missing';
  let ui: UiSession;
  let page: Page;
  let bao: OpenBao;
  const alert = (title: string) => page.getByRole('alert').filter({ hasText: title });

  beforeAll(async () => {
    [ui, bao] = await Promise.all([openUi(slug), startOpenBao()]);
    page = ui.page;
    await page.goto(`${ui.svc.base}/clusters`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signUpWithOrg(page, slug);
  }, 240_000);

  afterAll(async () => {
    await ui?.close();
    await bao?.stop();
  });

  it('tests and registers a cluster; a refused one shows the reason, a duplicate the server error', async () => {
    await page.getByRole('link', { name: 'Clusters', exact: true }).click();
    await page.getByText('No clusters registered').waitFor();
    await page.getByRole('link', { name: 'Register cluster' }).click();
    await page.getByLabel('Name', { exact: true }).fill('self');
    await page.getByLabel('Server URL').fill('https://127.0.0.1:1');
    await page.getByLabel('Kubeconfig').fill(kubeconfig);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page
      .getByTestId('cluster-test')
      .getByText(/^Cannot connect: .+/)
      .waitFor();
    await page.getByLabel('Server URL').fill(serverURL);
    await page.getByLabel('Labels').fill('env=prod, region=eu');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page
      .getByTestId('cluster-test')
      .getByText(/^Connected: Kubernetes v1\.\d+/)
      .waitFor();
    await ui.shot('cluster-register');
    await ui.accessible();
    await page.getByRole('button', { name: 'Register cluster' }).click();
    await page.getByRole('heading', { name: 'self', exact: true }).waitFor();
    expect(page.url()).toBe(`${ui.svc.base}/clusters/self`);
    await page.getByText('connected', { exact: true }).first().waitFor();
    await page.getByRole('list', { name: 'Namespaces' }).getByText('kube-system', { exact: true }).waitFor();
    // The labels AppSets select clusters by, as registered.
    await page.getByText('env=prod, region=eu', { exact: true }).waitFor();
    // Write-only: the kubeconfig's credentials are not on the page.
    const token = /token: (\S+)/.exec(kubeconfig)?.[1];
    if (token) expect(await page.content()).not.toContain(token);
    await ui.shot('cluster');
    await ui.accessible();

    await page.goto(`${ui.svc.base}/clusters/new`);
    await page.getByLabel('Name', { exact: true }).fill('self');
    await page.getByLabel('Server URL').fill(serverURL);
    await page.getByRole('button', { name: 'Register cluster' }).click();
    const duplicate = await serverError(page, 'POST', '/api/v1/clusters', { name: 'self', server_url: serverURL });
    await alert('Could not register the cluster').getByText(duplicate, { exact: true }).waitFor();
  });

  it('lists the cluster probed, narrows its allowlist, and removes it', async () => {
    await page.getByRole('link', { name: 'Clusters', exact: true }).click();
    const row = page.locator('[data-cluster="self"]');
    await row.getByText('connected', { exact: true }).waitFor();
    await ui.shot('clusters');
    await ui.accessible();
    await row.getByRole('link', { name: 'self' }).click();
    await page.getByLabel('Namespace allowlist').fill('default');
    // A label edit replaces them all; filled together with the allowlist, both are saved.
    expect(await page.getByLabel('Labels').inputValue()).toBe('env=prod, region=eu');
    await page.getByLabel('Labels').fill('env=staging');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByText('env=staging', { exact: true }).waitFor();
    expect(await page.getByText('region=eu').count()).toBe(0);
    const namespaces = page.getByRole('list', { name: 'Namespaces' });
    await namespaces.getByText('default', { exact: true }).waitFor();
    await expect.poll(() => namespaces.getByRole('listitem').allTextContents()).toEqual(['default']);
    await page.getByLabel('Namespace allowlist').fill('Bad_Label');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const refused = await serverError(page, 'PATCH', '/api/v1/clusters/self', { namespaces: ['Bad_Label'] });
    await alert('Could not save the settings').getByText(refused, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove cluster' }).click();
    await page.getByText('No clusters registered').waitFor();
  });

  it('creates an OpenBao store after testing it, re-tests it, and shows a wrong token as the auth error', async () => {
    await page.getByRole('link', { name: 'Secret stores' }).click();
    await page.getByText('No secret stores yet').waitFor();
    await page.getByRole('link', { name: 'New store' }).click();
    await page.getByLabel('Provider').selectOption({ label: 'vault / openbao' });
    await page.getByLabel('Name', { exact: true }).fill('bao');
    await page.getByLabel('address', { exact: true }).fill(bao.address);
    await page.getByLabel('token', { exact: true }).fill(bao.token);
    await page.getByRole('button', { name: 'Test settings' }).click();
    await page
      .getByTestId('store-test')
      .getByText(/^Connected in \d+ ms/)
      .waitFor();
    await ui.shot('secret-store-create');
    await ui.accessible();
    await page.getByRole('button', { name: 'Create store' }).click();
    await page.getByRole('heading', { name: 'bao', exact: true }).waitFor();
    expect(page.url()).toMatch(new RegExp(`${ui.svc.base}/secret-stores/sts_`));
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page
      .getByTestId('store-test')
      .getByText(/^Connected/)
      .waitFor();
    await page.getByText('connected', { exact: true }).first().waitFor();
    await page.getByText('No App uses this store').waitFor();
    expect(await page.content()).not.toContain(bao.token);
    await ui.shot('secret-store');
    await ui.accessible();

    await page.getByLabel('token', { exact: true }).fill('not-a-valid-token');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page
      .getByTestId('store-test')
      .getByText(/^Test failed \(auth\): .+/)
      .waitFor();
    await page.getByText('error', { exact: true }).first().waitFor();
  });

  it('creates an age store showing its recipient, refuses a taken name with the server error, deletes', async () => {
    const identity = await generateX25519Identity();
    await page.goto(`${ui.svc.base}/secret-stores/new`);
    await page.getByLabel('Provider').selectOption({ label: 'sops / age' });
    await page.getByLabel('Name', { exact: true }).fill('bao');
    await page.getByLabel('privateKey', { exact: true }).fill(identity);
    await page.getByRole('button', { name: 'Create store' }).click();
    const taken = await serverError(page, 'POST', '/api/v1/secret-stores', {
      name: 'bao',
      type: 'sops',
      provider: 'age',
      credentials: { privateKey: identity },
    });
    await alert('Could not create the store').getByText(taken, { exact: true }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('age');
    await page.getByRole('button', { name: 'Create store' }).click();
    await page.getByRole('heading', { name: 'age', exact: true }).waitFor();
    await page.getByText(/^age1[0-9a-z]+$/).waitFor();
    expect(await page.content()).not.toContain(identity);

    await page.getByRole('link', { name: 'Secret stores' }).click();
    await page.locator('[data-store="bao"]').getByText('error', { exact: true }).waitFor();
    await page.locator('[data-store="age"]').waitFor();
    await ui.shot('secret-stores');
    await ui.accessible();
    await page.locator('[data-store="age"]').getByRole('link', { name: 'age' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete secret store' }).click();
    await page.locator('[data-store="bao"]').waitFor();
    expect(await page.locator('[data-store="age"]').count()).toBe(0);
  });

  it('answers can-i for the signed-in Owner', async () => {
    await page.getByRole('link', { name: 'Access' }).click();
    await page.getByLabel('Permission').selectOption('secretstore:manage');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByTestId('can-i').getByText('Allowed: secretstore:manage at org').waitFor();
    expect(ui.problems).toEqual([]);
  });

  it('saves an org health check, shows a compile error as the server says it, and deletes the check', async () => {
    await page.getByRole('link', { name: 'Health checks' }).click();
    await page.getByText('No health checks yet').waitFor();
    await page.getByLabel('API version').fill('cert-manager.io/v1');
    await page.getByLabel('Kind', { exact: true }).fill('Certificate');
    await page.getByLabel('Current').fill('status.ready ==');
    await page.getByRole('button', { name: 'Save check' }).click();
    const refused = await serverError(page, 'POST', '/api/v1/health-checks', {
      api_version: 'cert-manager.io/v1',
      kind: 'Certificate',
      current: 'status.ready ==',
    });
    await alert('Could not save the check').getByText(refused, { exact: true }).waitFor();
    await page.getByLabel('Failed').fill("status.conditions.exists(c, c.type == 'Ready' && c.status == 'False')");
    await page.getByLabel('Current').fill("status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')");
    await page.getByRole('button', { name: 'Save check' }).click();
    const table = page.getByRole('table', { name: 'Health checks' });
    await table.getByText('cert-manager.io/v1 Certificate').waitFor();
    await ui.accessible();
    await ui.shot('health-checks');
    await table.getByRole('button', { name: 'Delete the check of Certificate' }).click();
    await page.getByText('No health checks yet').waitFor();
    expect(ui.problems).toEqual([]);
  });
});
