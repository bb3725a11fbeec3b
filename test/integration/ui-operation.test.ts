/**
 * One operation, three observers, one rule (src/core/operation-outcome.ts): `svc app sync --wait` (the real
 * executable) requests a sync, the App page in chromium shows its banner (an operation started elsewhere), and a
 * `GET …/status?wait=` waits, all against a real `svc start` with its operator and a real git server. The sync's
 * Deployment cannot become Ready until the test opens a gate (its node selector matches the fake node once the test
 * labels it), so the operation is applied (phase Succeeded, health Progressing) long before it ends: none of the
 * three may end there (the UI used to say "Sync succeeded" while the CLI still waited for health). Once the gate
 * opens, all three end at the moment the App turns Synced and Healthy (its event on the App stream), within a
 * moment of each other, and say the same thing. A staged sync (two waves, the first behind a gate of its own) shows
 * the phase and wave it waits on in all of them, and in MCP's app_status (issue 25, item 6).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  chromiumRequirement,
  describeWith,
  type GitServer,
  openSse,
  type SseStream,
  startGitServer,
  waitUntil,
} from '../harness/index.ts';
import { startSvc } from './cli-support.ts';
import { connectMcp } from './mcp-support.ts';
import { configMapYaml, deleteNamespaces, deploymentYaml, kube } from './operator-support.ts';
import { apiCall, openUi, signUpWithOrg, type UiSession } from './ui-support.ts';

type Json = Record<string, any>;
/** How far apart the three may end: each reacts to the same App change through its own request. */
const TOGETHER_MS = 3_000;

describeWith(chromiumRequirement())('one operation seen by the UI banner, the CLI and the status wait', () => {
  const hex = randomBytes(3).toString('hex');
  const slug = `uiop-${hex}`;
  const dest = `uiop-${hex}`;
  const gate = `svc-test.cd.svc.space/gate-${hex}`;
  let ui: UiSession;
  let page: Page;
  let git: GitServer;
  let key = '';
  let stream: SseStream | undefined;
  let cliProcess: ChildProcess | undefined;
  let nodeName = '';

  const labelNode = (value: string | null) =>
    kube().mergePatch({ apiVersion: 'v1', kind: 'Node', name: nodeName }, { metadata: { labels: { [gate]: value } } });

  beforeAll(async () => {
    git = await startGitServer();
    const repo = await git.createRepo(`${slug}-web`, {
      'm/web.yaml': deploymentYaml('web', 1, 'nginx:1.0', { [gate]: 'open' }),
    });
    ui = await openUi(slug);
    page = ui.page;
    await page.goto(`${ui.svc.base}/apps`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signUpWithOrg(page, slug);
    const created = await apiCall(page, 'POST', '/api/v1/apps', {
      name: 'web',
      namespace: dest,
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
    });
    expect(created.status).toBe(201);
    const minted = await apiCall<{ key: string }>(page, 'POST', '/api/v1/auth/api-keys', { name: 'ci', role: 'sync' });
    expect(minted.status).toBe(201);
    key = minted.body.key;
    const nodes = await kube().client.request<{ items: { metadata: { name: string } }[] }>('/api/v1/nodes');
    nodeName = nodes.items[0]?.metadata.name ?? '';
    expect(nodeName).not.toBe('');
  }, 240_000);

  afterAll(async () => {
    cliProcess?.kill();
    stream?.close();
    if (nodeName) await labelNode(null);
    await ui?.close();
    await git?.stop();
    await deleteNamespaces(dest);
  });

  it('none ends when the sync is applied; all end together when the App is Synced and Healthy', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const base = ui.svc.base;
    await page.goto(`${base}/apps/${dest}/web`);
    await page.getByRole('heading', { name: 'web', exact: true }).waitFor();
    stream = await openSse(`${base}/api/v1/apps/stream`, auth);
    await stream.next((e) => e.event === 'ready', 'ready');

    // The CLI requests the sync and follows it.
    const started = startSvc(['app', 'sync', 'web', '--wait', '--timeout', '4m'], {
      PATH: process.env['PATH'] ?? '',
      HOME: ui.svc.dataDir,
      SVC_SERVER: base,
      SVC_API_KEY: key,
    });
    cliProcess = started.child;
    const cli = started.output;
    const cliExited = started.exited;
    const id = await waitUntil(() => /\(operation ([0-9a-f-]{36})\)/.exec(cli.stderr)?.[1], {
      what: 'the CLI to request the sync',
    });

    // The status wait, asked once the operation exists.
    const wait = { body: undefined as Json | undefined, endedAt: 0 };
    const waited = fetch(`${base}/api/v1/apps/${dest}/web/status?wait=120s`, { headers: auth }).then(async (res) => {
      wait.body = (await res.json()) as Json;
      wait.endedAt = performance.now();
    });

    // The page follows the operation it did not start.
    const banner = page.getByRole('status').filter({ hasText: /Sync (in progress|succeeded|failed|held)/ });
    await banner.getByText('Sync in progress…').waitFor();

    // Applied, not ended: phase Succeeded, the Deployment unavailable behind the closed gate.
    const status = async () =>
      (await fetch(`${base}/api/v1/apps/${dest}/web/status`, { headers: auth })).json() as Promise<Json>;
    await waitUntil(
      async () => {
        const s = await status();
        return (
          s['operationState']?.id === id && s['operationState']?.phase === 'Succeeded' && s['health'] === 'Progressing'
        );
      },
      { what: 'the sync applied and the App Progressing', timeoutMs: 120_000 },
    );
    await new Promise((r) => setTimeout(r, 3_000));
    expect(cli.endedAt, cli.stderr).toBe(0);
    expect(wait.endedAt).toBe(0);
    expect(await banner.getAttribute('data-phase')).toBeNull();
    expect(await banner.textContent()).toBe('Sync in progress…');

    // The gate opens: the Pod is scheduled, kwok makes it Ready, the App turns Synced and Healthy.
    const openedAt = performance.now();
    await labelNode('open');
    const ended = page.locator('[role="status"][data-phase]');
    const uiEnded = ended.waitFor({ timeout: 120_000 }).then(() => performance.now());
    const [uiEndedAt] = await Promise.all([uiEnded, cliExited, waited]);
    const healthy = await stream.next((e) => {
      if (e.event !== 'app') return false;
      const { app } = JSON.parse(e.data) as { app: Json };
      return app['name'] === 'web' && app['sync_status'] === 'Synced' && app['health'] === 'Healthy';
    }, 'the App Synced and Healthy on the stream');

    // The same verdict from all three...
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/^web: Synced and Healthy at [0-9a-f]{12}/m);
    expect(wait.body).toMatchObject({
      sync_status: 'Synced',
      health: 'Healthy',
      operationState: { id, phase: 'Succeeded' },
    });
    expect(await ended.getAttribute('data-phase')).toBe('Succeeded');
    expect(await ended.textContent()).toMatch(/^Sync succeeded: Synced and Healthy at [0-9a-f]{12}/);
    // ...at the same moment: not before the App turned Healthy, and within a moment of it.
    for (const [who, at] of [
      ['the CLI', cli.endedAt],
      ['the status wait', wait.endedAt],
      ['the UI banner', uiEndedAt],
    ] as const) {
      expect(at, who).toBeGreaterThan(openedAt);
      expect(at, who).toBeGreaterThanOrEqual(healthy.at - 500);
      expect(at - healthy.at, who).toBeLessThan(TOGETHER_MS);
    }

    // Idle, the page asks nothing: the App stream brings every change (it used to read the status every second
    // for as long as the banner was shown, issue 31 item 3). One read is allowed for a change the operator
    // might record meanwhile (its periodic resync).
    const statusReads: string[] = [];
    const count = (request: { url(): string }) => {
      if (request.url().includes(`/api/v1/apps/${dest}/web/status`)) statusReads.push(request.url());
    };
    page.on('request', count);
    await new Promise((r) => setTimeout(r, 6_000));
    page.off('request', count);
    expect(statusReads.length, statusReads.join('\n')).toBeLessThanOrEqual(1);
  });
  it("a staged sync's phase and wave show in the banner, in svc app sync --wait and in MCP's app_status", async () => {
    // Wave 0 waits behind its own gate (its Deployment cannot be Ready until the node carries the label); wave 1
    // follows. While the sync waits, operationState says Sync wave 0.
    const gate2 = `${gate}-staged`;
    const relabel = (value: string | null) =>
      kube().mergePatch(
        { apiVersion: 'v1', kind: 'Node', name: nodeName },
        { metadata: { labels: { [gate2]: value } } },
      );
    const wave1 = configMapYaml('after').replace(
      'name: after',
      'name: after\n  annotations: {cd.svc.space/sync-wave: "1"}',
    );
    const repo = await git.createRepo(`${slug}-staged`, {
      'm/web.yaml': deploymentYaml('staged', 1, 'nginx:1.0', { [gate2]: 'open' }),
      'm/after.yaml': wave1,
    });
    const created = await apiCall(page, 'POST', '/api/v1/apps', {
      name: 'staged',
      namespace: dest,
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
    });
    expect(created.status).toBe(201);
    const auth = { authorization: `Bearer ${key}` };
    const base = ui.svc.base;
    await page.goto(`${base}/apps/${dest}/staged`);
    await page.getByRole('heading', { name: 'staged', exact: true }).waitFor();
    const started = startSvc(['app', 'sync', 'staged', '--wait', '--timeout', '4m'], {
      PATH: process.env['PATH'] ?? '',
      HOME: ui.svc.dataDir,
      SVC_SERVER: base,
      SVC_API_KEY: key,
    });
    cliProcess = started.child;
    const cli = started.output;

    // The banner names the wave the sync waits on; so does the CLI's progress (stderr, a line per change).
    await page.getByRole('status').filter({ hasText: 'Sync in progress: Sync wave 0…' }).waitFor({ timeout: 120_000 });
    await waitUntil(() => /Sync running, Sync wave 0/.test(cli.stderr) || undefined, {
      what: 'the CLI to show the wave',
      timeoutMs: 30_000,
    });
    // MCP's app_status returns the status view with the phase and wave.
    const mcp = await connectMcp(base, { headers: auth });
    try {
      const result = await mcp.call('app_status', { namespace: dest, name: 'staged' });
      expect(result.structuredContent?.['operationState']).toMatchObject({
        phase: 'Running',
        syncPhase: 'Sync',
        wave: 0,
      });
    } finally {
      await mcp.close();
    }

    await relabel('open');
    try {
      await started.exited;
      expect(cli.status, cli.stderr).toBe(0);
      expect(cli.stdout).toMatch(/^staged: Synced and Healthy at [0-9a-f]{12}/m);
      const ended = page.locator('[role="status"][data-phase]');
      await ended.waitFor({ timeout: 60_000 });
      expect(await ended.getAttribute('data-phase')).toBe('Succeeded');
      // Ended, the operation shows no step any more.
      const status = (await (
        await fetch(`${base}/api/v1/apps/${dest}/staged/status`, { headers: auth })
      ).json()) as Json;
      expect(status['operationState']?.syncPhase).toBeUndefined();
    } finally {
      await relabel(null);
    }
  });
});
