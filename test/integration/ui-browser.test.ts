/**
 * The web UI in a real browser (Debian's chromium through playwright-core) against a real `svc start` with the
 * real plane and a real git server: sign up → create an org → create a Git App → sync and watch it turn
 * Synced/Healthy live → its resource graph → break it (a commit whose Deployment can never roll out) → the diff
 * and Degraded → roll back from the history (each revision with its commit subject, author and date) → Healthy again. Every main page is saved as a screenshot under
 * docs/screenshots/ (shown in the README), checked with axe for accessibility, and hostile text (event messages,
 * annotations, URLs, search deep links) is shown inert. Every wait is on UI state, never on time.
 */

import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { connect } from '../../src/kube/index.ts';
import { chromiumRequirement, describeWith, type GitRepo, type GitServer, startGitServer } from '../harness/index.ts';
import { apiCall, openUi, signUpWithOrg, type UiSession } from './ui-support.ts';

const LONG = { timeout: 90_000 };

const deployment = (extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    note: '<script>window.__xss = "annotation"</script>'
spec:
  replicas: 2
${extra}  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
${extra ? '      nodeSelector: { nowhere: "true" }\n' : ''}      containers:
        - name: web
          image: nginx:1.27
`;
const service = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: { app: web }
  ports:
    - port: 80
`;

describeWith(chromiumRequirement())('the web UI in a browser', () => {
  const slug = `ui-${randomBytes(3).toString('hex')}`;
  const dest = `${slug}-web`;
  let git: GitServer;
  let repo: GitRepo;
  let ui: UiSession;
  let page: Page;
  let firstCommit = '';
  const shot = (name: string) => ui.shot(name);
  const accessible = () => ui.accessible();
  const statusIs = (testId: string, value: string) =>
    page.getByTestId(testId).getByText(value, { exact: true }).waitFor(LONG);
  const tab = (label: string) => page.getByRole('tab', { name: label }).click();

  beforeAll(async () => {
    git = await startGitServer();
    repo = await git.createRepo(`${slug}-web`, { 'm/web.yaml': deployment(), 'm/service.yaml': service });
    firstCommit = await repo.head();
    ui = await openUi(slug);
    page = ui.page;
  }, 240_000);

  afterAll(async () => {
    await ui?.close();
    await git?.stop();
  });

  it('signs up, creates an org and lands on an empty app list', async () => {
    await page.goto(`${ui.svc.base}/apps`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot('sign-in');
    await signUpWithOrg(page, slug);
    await page.locator('[data-live="live"]').waitFor();
  });

  it('creates a Git App with a form checked by the API', async () => {
    await page.getByRole('link', { name: 'New app' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Web');
    await page.getByText(/must be a DNS-1123 label/).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('web');
    await page.getByLabel('Destination namespace').fill(dest);
    await page.getByLabel('Repository URL').fill(repo.url);
    await page.getByLabel('Path').fill('m');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('Valid.').waitFor();
    await shot('app-create');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByRole('heading', { name: 'web', exact: true }).waitFor();
    expect(page.url()).toBe(`${ui.svc.base}/apps/${dest}/web`);
  });

  it('syncs and watches the App turn Synced and Healthy live, then shows its resource graph', async () => {
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    await page.getByText(/Sync (in progress|succeeded)/).waitFor();
    await page.getByText(/Sync succeeded/).waitFor(LONG);
    await statusIs('sync-status', 'Synced');
    await statusIs('health', 'Healthy');
    await page.locator('[data-node-kind="Pod"]').first().waitFor(LONG);
    expect(await page.locator('[data-node-kind="ReplicaSet"]').count()).toBeGreaterThan(0);
    await page.locator('[data-node-kind="Deployment"]').click();
    await page.getByText('<script>window.__xss = "annotation"</script>').waitFor();
    await shot('app-graph');
    await accessible();
  });

  it('gives each graph node one named Tab stop, no stop to edges, and Clone as a plain link (keyboard)', async () => {
    const graph = page.getByTestId('resource-graph');
    const nodeCount = await graph.locator('[data-node-kind]').count();
    await page.getByRole('tab', { selected: true }).focus();
    // Every Tab stop from the selected tab until focus leaves the graph again: what a keyboard user walks through.
    const stops: { where: string; tag: string; role: string; name: string }[] = [];
    for (let i = 0; i < nodeCount + 20; i++) {
      await page.keyboard.press('Tab');
      const stop = await page.evaluate(() => {
        type El = {
          tagName: string;
          textContent: string | null;
          getAttribute(n: string): string | null;
          closest(s: string): El | null;
        };
        const document = (
          globalThis as unknown as { document: { activeElement: El | null; getElementById(id: string): El | null } }
        ).document;
        const el = document.activeElement;
        const inGraph = el?.closest('[data-testid="resource-graph"]');
        const where = !inGraph
          ? 'outside'
          : el?.closest('.react-flow__edge')
            ? 'edge'
            : el?.closest('.react-flow__node')
              ? 'node'
              : 'graph';
        const labelledBy = el?.getAttribute('aria-labelledby');
        const name =
          el?.getAttribute('aria-label') ??
          (labelledBy ? document.getElementById(labelledBy)?.textContent : null) ??
          el?.getAttribute('title') ??
          '';
        return { where, tag: el?.tagName ?? '', role: el?.getAttribute('role') ?? '', name: name.trim() };
      });
      if (stop.where === 'outside' && stops.length > 0) break;
      if (stop.where !== 'outside') stops.push(stop);
    }
    const onNodes = stops.filter((s) => s.where === 'node');
    expect(onNodes).toHaveLength(nodeCount);
    for (const s of onNodes) {
      expect(s).toMatchObject({ tag: 'BUTTON', role: '' });
      expect(s.name).toMatch(/^[A-Z]\w+ \S+, \w+$/);
    }
    expect(stops.filter((s) => s.where === 'edge')).toEqual([]);
    expect(stops.filter((s) => s.role === 'group' || s.name === '')).toEqual([]);
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
    const edgeNames = await graph
      .locator('.react-flow__edge')
      .evaluateAll((es) => es.map((e) => e.getAttribute('aria-label') ?? ''));
    expect(edgeNames.length).toBe(nodeCount - 1);
    for (const n of edgeNames) expect(n).toMatch(/^[A-Z]\w+ \S+ owns [A-Z]\w+ \S+$/);
    expect(stops.map((s) => s.name).filter((n) => uuid.test(n))).toEqual([]);
    expect(edgeNames.filter((n) => uuid.test(n))).toEqual([]);

    const clone = page.getByRole('link', { name: 'Clone', exact: true });
    expect(await clone.locator('button').count()).toBe(0);
    expect(await page.locator('a button, button a').count()).toBe(0);
    expect(await clone.getAttribute('href')).toBe(`/apps/new?clone=${encodeURIComponent(`${dest}/web`)}`);
  });

  it('breaks: shows OutOfSync and the diff, then Degraded after syncing the broken revision', async () => {
    await repo.commit({ 'm/web.yaml': deployment('  progressDeadlineSeconds: 1\n') }, 'break the rollout');
    await statusIs('sync-status', 'OutOfSync');
    await tab('Diff');
    const change = page.locator('[data-diff-object="Deployment/web"]');
    await change.waitFor(LONG);
    await page.getByTestId('diff-verdict').getByText('OutOfSync').waitFor();
    expect(await change.textContent()).toContain('nowhere');
    await shot('app-diff');
    // Compare with a ref: a pull request's ref (no branch holds it) previewed against live, then back to the head.
    // The pull request starts from what is applied: only its own change differs from live.
    await repo.createBranch('pr-3', firstCommit);
    await repo.commit({ 'm/service.yaml': service.replace('port: 80', 'port: 8080') }, 'pr 3: port 8080', {
      branch: 'pr-3',
    });
    await repo.pushPullRef(3, 'pr-3');
    await repo.deleteRef('pr-3');
    await page.getByLabel('Compare with a ref').fill('refs/pull/3/head');
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.getByTestId('diff-ref').getByText('refs/pull/3/head').waitFor(LONG);
    const port = page.locator('[data-diff-object="Service/web"]');
    await port.waitFor(LONG);
    expect(await port.textContent()).toContain('8080');
    expect(await page.locator('[data-diff-object="Deployment/web"]').count()).toBe(0);
    await page.getByLabel('Compare with a ref').fill('no-such-branch');
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.getByText(/revision "no-such-branch" not found/).waitFor(LONG);
    await page.getByRole('button', { name: 'Back to the head' }).click();
    await change.waitFor(LONG);
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    // Applied, but the rollout fails: the operation ends failed (as `svc app sync --wait` exits 1), not "succeeded".
    await page.getByText(/Sync failed: Degraded/).waitFor(LONG);
    await statusIs('health', 'Degraded');
  });

  it('rolls back from the history in one click and returns to Healthy', async () => {
    await tab('History');
    // Each revision says what it is: the commit's subject over its author and date.
    const current = page.locator('tr[data-revision]').first();
    await current.getByText('break the rollout', { exact: true }).waitFor();
    await current.getByText(/^svc test · /).waitFor();
    const previous = page.locator(`tr[data-revision="${firstCommit}"]`);
    await previous.getByText('initial commit', { exact: true }).waitFor();
    await previous.getByText(/^svc test · /).waitFor();
    await page.getByRole('button', { name: `Roll back to ${firstCommit.slice(0, 12)}` }).click();
    await page
      .getByRole('dialog')
      .getByText(/“initial commit”/)
      .waitFor();
    // Held at that revision: the history shows the hold until Release ends it.
    await page.getByRole('dialog').getByLabel('Hold at this revision until released').check();
    await page.getByRole('dialog').getByRole('button', { name: 'Roll back' }).click();
    await page.getByText(/Rollback succeeded/).waitFor(LONG);
    await statusIs('health', 'Healthy');
    const held = page.locator(`[data-held="${firstCommit}"]`);
    await held.getByText(`Held at ${firstCommit.slice(0, 12)}`, { exact: false }).waitFor();
    await shot('app-history');
    await held.getByRole('button', { name: 'Release' }).click();
    await held.waitFor({ state: 'detached' });
    await tab('Resources');
    await page.locator('tr[data-kind="Pod"]').first().waitFor();
    await shot('app-resources');
    await accessible();
    await tab('Logs');
    await page
      .getByTestId('log-lines')
      .getByText(/svc fake pod: serving on :80/)
      .waitFor();
    await shot('app-logs');
  });

  it('lists, filters and opens Apps from the keyboard; the list follows the App live', async () => {
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await page.locator('[data-row-name="web"]').waitFor();
    await page.locator('[data-row-name="web"]').getByText('Healthy').waitFor();
    await shot('apps');
    await accessible();
    const searchBox = page.getByRole('searchbox', { name: 'Search apps' });
    await searchBox.focus();
    await page.keyboard.type('nothing-like-this');
    await page.waitForURL(/q=nothing-like-this$/);
    await page.getByText('No app matches these filters').waitFor();
    await searchBox.fill('we');
    await page.locator('[data-row-name="web"]').waitFor();
    await page.locator('[data-row-name="web"] a').focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'web', exact: true }).waitFor();
  });

  it('signing in again, a member of exactly one org lands on its Apps, not on "Create an organization"', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${ui.svc.base}/sign-in`);
    await page.getByLabel('Email').fill(`${slug}@example.test`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const landed = page.getByRole('heading', { name: /^(Apps|Create an organization)$/ });
    await landed.waitFor();
    expect(await landed.textContent()).toBe('Apps');
    await page.locator('[data-row-name="web"]').waitFor();
    expect(new URL(page.url()).pathname).toBe('/apps');
    expect(await page.getByRole('combobox', { name: 'Organization' }).locator('option:checked').textContent()).toBe(
      'Acme',
    );
  });

  it('mints an API key shown once, and shows the audit log, access and members pages', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('ci');
    await page.getByLabel('Role ceiling').selectOption('sync');
    await page.getByRole('button', { name: 'Create key' }).click();
    const minted = await page.getByTestId('minted-key').textContent();
    expect(minted).toMatch(/^svc_/);
    await shot('api-keys');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: 'ci', exact: true }).waitFor();
    expect(await page.content()).not.toContain(minted ?? 'svc_');

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByText('apikey.create').waitFor();
    await page.getByText('app.rollback').waitFor();
    // Who acted, by name and email, and the details as "key: value" lines, not a user id and raw JSON.
    const minting = page.getByRole('row').filter({ hasText: 'apikey.create' }).filter({ hasText: 'ci' });
    await minting.getByText('Ada', { exact: true }).waitFor();
    await minting.getByText(`${slug}@example.test`, { exact: true }).waitFor();
    await minting.getByText('role: sync', { exact: true }).waitFor();
    expect(await page.getByRole('table', { name: 'Audit entries' }).textContent()).not.toMatch(/[{]"/);
    await shot('audit');
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('cell', { name: `${slug}@example.test` }).waitFor();
    await page.getByLabel('Email').fill(`friend-${slug}@example.test`);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('cell', { name: `friend-${slug}@example.test` }).waitFor();
    await shot('members');
    await page.getByRole('link', { name: 'Access' }).click();
    await page.getByLabel('Member').selectOption({ label: `${slug}@example.test` });
    await page.getByLabel('Scope id', { exact: true }).fill(`/${dest}`);
    await page.getByRole('button', { name: 'Grant' }).click();
    await page.getByRole('cell', { name: `deployment /${dest}`, exact: true }).waitFor();
    await shot('access');
    await accessible();
  });

  it('stored XSS (CVE-2026-45738): renders hostile event messages, URLs and deep links as inert text', async () => {
    const mgmt = connect({ kubeconfigPath: inject('mgmtKubeconfig') });
    const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await mgmt.client.request(`/api/v1/namespaces/org-${slug}/events`, {
      method: 'POST',
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: 'web.' },
        involvedObject: { apiVersion: 'cd.svc.space/v1alpha1', kind: 'App', name: 'web', namespace: `org-${slug}` },
        reason: '<script>window.__xss="reason"</script>',
        message: '<img src=x onerror="window.__xss=\'event\'">',
        type: 'Warning',
        firstTimestamp: at,
        lastTimestamp: at,
        source: { component: 'test' },
      },
    });
    await page.goto(`${ui.svc.base}/apps/${dest}/web?tab=events`);
    await page.getByText('<img src=x onerror="window.__xss=\'event\'">').waitFor();
    await page.getByText('<script>window.__xss="reason"</script>').waitFor();

    // A repository URL that passes the API's rule yet carries markup; and one javascript: link never made.
    const hostile = 'https://git.example.test/<img/src=x/onerror=window.__xss="url">';
    const created = await page.evaluate(
      async ([url, ns]) =>
        (
          await fetch('/api/v1/apps', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'hostile', namespace: ns, source: { type: 'Git', git: { repoURL: url } } }),
          })
        ).status,
      [hostile, dest],
    );
    expect(created).toBe(201);
    await page.goto(`${ui.svc.base}/apps/${dest}/hostile`);
    await page.getByRole('heading', { name: 'hostile' }).waitFor();
    await page.getByText(hostile).first().waitFor();
    const hrefs = await page.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    expect(hrefs.filter((h) => /^\s*javascript:/i.test(h))).toEqual([]);

    await page.goto(`${ui.svc.base}/apps?q=${encodeURIComponent('<script>window.__xss="q"</script>')}`);
    await page.getByRole('searchbox', { name: 'Search apps' }).waitFor();
    expect(await page.getByRole('searchbox', { name: 'Search apps' }).inputValue()).toBe(
      '<script>window.__xss="q"</script>',
    );
    await page.goto(`${ui.svc.base}/sign-in?redirect=${encodeURIComponent('javascript:window.__xss="redirect"')}`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    expect(await page.evaluate(() => (globalThis as { __xss?: unknown }).__xss)).toBeUndefined();
    const csp = (await fetch(`${ui.svc.base}/apps`, { headers: { accept: 'text/html' } })).headers.get(
      'content-security-policy',
    );
    expect(csp).toContain("script-src 'self'");
    expect(ui.problems).toEqual([]);
  });

  it('has a dark theme', async () => {
    await page.goto(`${ui.svc.base}/apps/${dest}/web`);
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await statusIs('health', 'Healthy');
    await page.locator('[data-node-kind="Pod"]').first().waitFor(LONG);
    await shot('app-graph-dark');
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
  });

  // Last: it leaves the second org active.
  it('formats counts one way: a second org of 1,000 Apps reads "1,000 apps"', async () => {
    const second = `${slug}-many`;
    const created = await apiCall(page, 'POST', '/api/auth/organization/create', { name: 'Many', slug: second });
    expect(created.status).toBe(200);
    // Written straight to the apiserver (the operator of this run reconciles the first org only, so nothing syncs).
    const mgmt = connect({ kubeconfigPath: inject('mgmtKubeconfig') });
    const path = `/apis/cd.svc.space/v1alpha1/namespaces/org-${second}/apps`;
    const names = Array.from({ length: 1000 }, (_, i) => `app-${String(i).padStart(4, '0')}`);
    const write = async (queue: string[]) => {
      for (let name = queue.pop(); name; name = queue.pop()) {
        await mgmt.client.request(path, {
          method: 'POST',
          body: {
            apiVersion: 'cd.svc.space/v1alpha1',
            kind: 'App',
            metadata: { name, namespace: `org-${second}` },
            spec: { source: { type: 'Git', git: { repoURL: repo.url } }, destination: { namespace: name } },
          },
        });
      }
    };
    await Promise.all(Array.from({ length: 16 }, () => write(names)));
    await page.goto(`${ui.svc.base}/apps`);
    await page.getByRole('combobox', { name: 'Organization' }).selectOption({ label: 'Many' });
    await page.locator('[data-total="1000"]').waitFor(LONG);
    expect(await page.locator('[data-total="1000"]').textContent()).toBe('1,000 apps');

    // Back in the first org, the list is that org's and the live feed follows it: an App written there now appears
    // without a reload (the feed's stream is per org, so switching orgs must open a new one).
    await page.getByRole('combobox', { name: 'Organization' }).selectOption({ label: 'Acme' });
    await page.locator('[data-row-name="web"]').waitFor();
    await mgmt.client.request(`/apis/cd.svc.space/v1alpha1/namespaces/org-${slug}/apps`, {
      method: 'POST',
      body: {
        apiVersion: 'cd.svc.space/v1alpha1',
        kind: 'App',
        metadata: { name: 'late', namespace: `org-${slug}` },
        spec: { source: { type: 'Git', git: { repoURL: repo.url } }, destination: { namespace: `${slug}-late` } },
      },
    });
    await page.locator('[data-row-name="late"]').waitFor(LONG);
    expect(await page.locator('[data-row-name="app-0000"]').count()).toBe(0);
  });
});
