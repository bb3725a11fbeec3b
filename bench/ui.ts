/**
 * ui: the web UI and its live feed at 10,000 Apps, against `svc server` (API + UI, no operator) on the real plane.
 * - list usable: time from navigation start to the first App rows painted in Debian's chromium (cold: first
 *   visit, nothing cached; warm: assets cached), read from the page's own clock (performance.now());
 * - filter: time from a new search or health filter to its result painted (the server filters the 10,000);
 * - SSE fan-out: 100 clients on GET /apps/stream, 1000 App status changes written to the apiserver; delivery delay
 *   (write → event parsed by a client) over every delivery, and the server's CPU seconds meanwhile.
 * App resources and their statuses are written straight to the apiserver (as the operator would), so no
 * reconcile competes for the two cores. Targets: list usable < 1 s, filter < 200 ms, SSE p95 < 1 s.
 */
import type { Page } from 'playwright-core';
import { ensureWebBuild } from '../scripts/build-web.ts';
import { connect } from '../src/kube/index.ts';
import { launchBrowser, openSse, type SseStream } from '../test/harness/index.ts';
import { benchAccount } from './lib/account.ts';
import { appName, appResource } from './lib/fixture.ts';
import { load } from './lib/load.ts';
import { startBenchPlane } from './lib/plane.ts';
import { forEachLimit } from './lib/pool.ts';
import { sampleProcess } from './lib/proc.ts';
import { writeResult } from './lib/results.ts';
import { summarize } from './lib/stats.ts';
import { startServerProcess } from './lib/svc-process.ts';
import { appsPath } from './lib/wait.ts';

/** Parameters of the ui benchmark. */
export interface UiParams {
  apps: number;
  clients: number;
  updates: number;
  /** Repetitions of each browser measurement. */
  rounds: number;
}

const TARGETS = { listUsableMs: 1000, filterMs: 200, ssep95Ms: 1000 };

/** A status like the operator writes; every 10th App Degraded, every 7th OutOfSync (filters have work to do). */
function status(i: number, reason = '') {
  const now = new Date().toISOString();
  const revision = (i + 1).toString(16).padStart(40, 'a');
  const degraded = i % 10 === 3;
  return {
    syncStatus: i % 7 === 2 ? 'OutOfSync' : 'Synced',
    healthStatus: degraded ? 'Degraded' : 'Healthy',
    healthReason: reason || (degraded ? 'Deployment web: 0/1 ready' : ''),
    lastSyncAt: now,
    revision,
    observedRevision: revision,
    conditions: [{ type: 'Ready', status: degraded ? 'False' : 'True', reason: 'Assessed', lastTransitionTime: now }],
  };
}

/**
 * Milliseconds on the page's clock from the user's action to its result on screen: from the first `input` or
 * `change` event the action fires (seen on the document, in the capture phase) to the first animation frame after
 * `selector` matches (a MutationObserver watches for it). Both ends are read in the page, so the driver's own round
 * trips (Playwright's fill and its polling) are not counted; an earlier version timed from before `act` to
 * `waitForSelector` returning and counted them (bench/README.md, issue 29).
 */
async function timeOnPage(page: Page, act: () => Promise<void>, selector: string): Promise<number> {
  // A script string: this file is compiled without the DOM's types, and the code runs in the page.
  await page.evaluate(`(() => {
    const sel = ${JSON.stringify(selector)};
    globalThis.__mark = undefined;
    globalThis.__seen = undefined;
    const mark = () => { globalThis.__mark ??= performance.now(); };
    document.addEventListener('input', mark, { capture: true, once: true });
    document.addEventListener('change', mark, { capture: true, once: true });
    const observer = new MutationObserver(() => {
      if (globalThis.__mark === undefined || !document.querySelector(sel)) return;
      observer.disconnect();
      requestAnimationFrame(() => { globalThis.__seen = performance.now(); });
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  })()`);
  await act();
  await page.waitForFunction(() => (globalThis as { __seen?: number }).__seen !== undefined, undefined, {
    timeout: 60_000,
  });
  return page.evaluate(() => {
    const w = globalThis as { __mark?: number; __seen?: number };
    return (w.__seen ?? 0) - (w.__mark ?? 0);
  });
}

/** Runs the ui benchmark and writes bench/results/ui.json. */
export async function ui(params: UiParams, log: (line: string) => void): Promise<string> {
  log(`ui: web build ${await ensureWebBuild()}`);
  const plane = await startBenchPlane('bench-ui');
  const { client } = connect({ kubeconfigPath: plane.kubeconfigPath });
  const server = await startServerProcess({ kubeconfigPath: plane.kubeconfigPath });
  // The server's RSS over the whole run: its peak, and what it holds once every App is in its cache.
  const serverSampler = sampleProcess(server.pid, 250);
  const browser = await launchBrowser();
  const streams: SseStream[] = [];
  try {
    const account = await benchAccount(server.baseURL);
    log(`ui: writing ${params.apps} App resources and their statuses`);
    const started = performance.now();
    await forEachLimit(params.apps, 32, async (i) => {
      await client.request(appsPath, { method: 'POST', body: appResource(i, 'http://127.0.0.1:9/fixture.git') });
      await client.request(`${appsPath}/${appName(i)}/status`, {
        method: 'PATCH',
        body: { status: status(i) },
        contentType: 'application/merge-patch+json',
      });
    });
    const writeSeconds = (performance.now() - started) / 1000;
    log(`  written in ${writeSeconds.toFixed(1)} s`);
    const auth = { authorization: `Bearer ${account.key}` };
    for (;;) {
      const page = (await (await fetch(`${server.baseURL}/api/v1/apps?limit=1`, { headers: auth })).json()) as {
        total: number;
      };
      if (page.total >= params.apps) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const loadedRssMiB = serverSampler.last()?.rssMiB;
    log(`  server RSS with ${params.apps} Apps in its cache: ${loadedRssMiB} MiB`);

    // --- the API's pages the list asks for (one connection, as one browser tab) ---
    const pages = [
      { name: 'GET /api/v1/apps?limit=200 (the first page)', path: '/api/v1/apps?limit=200' },
      { name: 'GET /api/v1/apps?q=<one App>&limit=200', path: `/api/v1/apps?q=${appName(params.apps - 1)}&limit=200` },
    ];
    const apiPages = [];
    for (const p of pages) {
      const run = await load(server.baseURL, account.key, { ...p, method: 'GET', connections: 1 }, 10);
      log(`  ${p.name}: p50 ${run.latencyMs.p50} ms, p99 ${run.latencyMs.p99} ms`);
      apiPages.push(run);
    }

    // --- the list, in the browser ---
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    const [name, value] = account.cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: server.baseURL }]);
    const listUsable: number[] = [];
    for (let r = 0; r < params.rounds; r++) {
      const page = await context.newPage();
      await page.goto(`${server.baseURL}/apps`);
      await page.waitForSelector('[data-row-name]', { timeout: 60_000 });
      listUsable.push(await page.evaluate(() => performance.now()));
      await page.close();
    }
    log(`  list usable: ${listUsable.map((t) => t.toFixed(0)).join(', ')} ms`);

    const page = await context.newPage();
    await page.goto(`${server.baseURL}/apps`);
    await page.waitForSelector('[data-row-name]');
    const search = page.getByRole('searchbox', { name: 'Search apps' });
    const textFilter: number[] = [];
    for (let r = 0; r < params.rounds; r++) {
      // A distinct App each round, so no answer comes from the page's cache.
      const target = appName(params.apps - 1 - r);
      textFilter.push(await timeOnPage(page, () => search.fill(target), '[data-total="1"]'));
      await page.waitForSelector(`tr[data-row-name="${target}"]`);
      await search.fill('');
      await page.waitForSelector(`[data-total="${params.apps}"]`);
    }
    const healthFilter: number[] = [];
    const degraded = Math.floor((params.apps - 4) / 10) + 1;
    for (let r = 0; r < params.rounds; r++) {
      // A fresh page each round: the answer of the same filter must come from the server, not the page's cache.
      await page.goto(`${server.baseURL}/apps`);
      await page.waitForSelector(`[data-total="${params.apps}"]`);
      const health = page.getByRole('combobox', { name: 'Health' });
      healthFilter.push(
        await timeOnPage(
          page,
          () => health.selectOption('Degraded').then(() => undefined),
          `[data-total="${degraded}"]`,
        ),
      );
    }
    log(
      `  text filter: ${textFilter.map((t) => t.toFixed(0)).join(', ')} ms; health filter: ${healthFilter.map((t) => t.toFixed(0)).join(', ')} ms`,
    );
    await context.close();

    // --- SSE fan-out ---
    log(`ui: ${params.clients} event-stream clients, ${params.updates} App updates`);
    for (let c = 0; c < params.clients; c++) streams.push(await openSse(`${server.baseURL}/api/v1/apps/stream`, auth));
    await Promise.all(streams.map((s) => s.next((e) => e.event === 'ready', 'ready')));
    const cpuBefore = serverSampler.last()?.cpuSeconds ?? 0;
    const writeStarted = performance.now();
    await forEachLimit(params.updates, 8, async (u) => {
      const i = (u * 7) % params.apps;
      await client.request(`${appsPath}/${appName(i)}/status`, {
        method: 'PATCH',
        body: { status: { healthReason: `bench-update ${Date.now()}` } },
        contentType: 'application/merge-patch+json',
      });
    });
    const writesSeconds = (performance.now() - writeStarted) / 1000;
    const isUpdate = (e: { event: string; data: string }) => e.event === 'app' && e.data.includes('bench-update ');
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline && streams.some((s) => s.events.filter(isUpdate).length < params.updates)) {
      await new Promise((r) => setTimeout(r, 250));
    }
    const samples = serverSampler.stop();
    const cpuSeconds = (samples.at(-1)?.cpuSeconds ?? 0) - cpuBefore;
    const delays: number[] = [];
    let delivered = 0;
    for (const s of streams) {
      for (const e of s.events) {
        if (!isUpdate(e)) continue;
        const sent = Number(/bench-update (\d+)/.exec(e.data)?.[1]);
        delays.push(performance.timeOrigin + e.at - sent);
        delivered++;
      }
    }
    const sse = {
      clients: params.clients,
      updates: params.updates,
      writesPerSecond: Number((params.updates / writesSeconds).toFixed(1)),
      deliveries: delivered,
      expectedDeliveries: params.clients * params.updates,
      delayMs: summarize(delays, 1),
      serverCpuSeconds: Number(cpuSeconds.toFixed(2)),
    };
    const serverMemory = {
      rssMiBWithAppsCached: loadedRssMiB,
      peakRssMiB: Math.max(...samples.map((s) => s.rssMiB)),
      peakHwmMiB: samples.at(-1)?.hwmMiB,
    };
    log(
      `  delivered ${delivered}/${sse.expectedDeliveries}; p95 ${sse.delayMs.p95} ms; server CPU ${sse.serverCpuSeconds} s`,
    );

    const result = {
      apps: params.apps,
      rounds: params.rounds,
      writeSeconds: Number(writeSeconds.toFixed(1)),
      listUsableMs: { cold: Number(listUsable[0]?.toFixed(0)), all: summarize(listUsable, 0) },
      filterMs: { text: summarize(textFilter, 0), health: summarize(healthFilter, 0) },
      sse,
      server: serverMemory,
      apiPages,
      targets: TARGETS,
      met: {
        listUsable: Math.max(...listUsable) < TARGETS.listUsableMs,
        filter: Math.max(...textFilter, ...healthFilter) < TARGETS.filterMs,
        sse: sse.delayMs.p95 < TARGETS.ssep95Ms && delivered === sse.expectedDeliveries,
      },
    };
    return await writeResult('ui', result);
  } finally {
    for (const s of streams) s.close();
    await browser.close();
    await server.stop();
    await client.dropConnections();
    await plane.stop();
  }
}
