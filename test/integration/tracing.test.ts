/**
 * Tracing (docs/operator.md "Tracing"): `svc server` and `svc operator`, each its own process with
 * OTEL_EXPORTER_OTLP_ENDPOINT naming a real OpenTelemetry Collector (test/harness/otel-collector.ts), export their
 * spans over OTLP. An App synced from Git gives a `reconcile` span with a child span per stage, a git child-process
 * span beneath it, the operator's internal call to the server as a client span whose trace the server's request
 * span joins (the `traceparent` header crosses the channel), and Events on the App carrying the reconcile's trace
 * id. A request to the API is a server span under the caller's `traceparent`.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TRACE_ID_ANNOTATION } from '../../src/operator/stages/events.ts';
import { freePort, type GitServer, repoRoot, SvcHttp, startGitServer, waitUntil } from '../harness/index.ts';
import { type OtelCollector, type ReceivedSpan, startOtelCollector } from '../harness/otel-collector.ts';
import { type ManagedProcess, makeTempDir, removeTempDir, startProcess } from '../harness/process.ts';
import { configMapYaml, deleteNamespaces, eventsOnceReported, waitForApp } from './operator-support.ts';

const slug = `tracing-${randomBytes(3).toString('hex')}`;
const org = `org-${slug}`;
const destination = `${slug}-dest`;
const operatorToken = randomBytes(32).toString('hex');
const processes: ManagedProcess[] = [];
let collector: OtelCollector;
let dir: string;
let server = '';
let git: GitServer;
let user: SvcHttp;

/** `svc <role>` as its own process, exporting spans to the collector. */
function startRole(role: 'server' | 'operator', args: string[], env: Record<string, string>): ManagedProcess {
  const data = join(dir, role);
  const proc = startProcess(
    role,
    join(repoRoot, 'node_modules/.bin/node'),
    [join(repoRoot, 'bin/svc.js'), role, ...args],
    {
      logDir: dir,
      leakScanAs: `svc ${role} log (tracing)`,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: data,
        SVC_DATA_DIR: data,
        SVC_MGMT_KUBECONFIG: inject('mgmtKubeconfig'),
        SVC_OPERATOR_TOKEN: operatorToken,
        SVC_LOG_LEVEL: 'warn',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
        // Export each batch quickly: the test waits for the spans.
        OTEL_BSP_SCHEDULE_DELAY: '200',
        ...env,
      },
    },
  );
  processes.push(proc);
  return proc;
}

beforeAll(async () => {
  dir = makeTempDir('tracing');
  git = await startGitServer();
  collector = await startOtelCollector();
  const port = await freePort();
  server = `http://127.0.0.1:${port}`;
  const api = startRole('server', [], { SVC_LISTEN: `127.0.0.1:${port}`, SVC_PUBLIC_URL: server });
  await waitUntil(async () => (await fetch(`${server}/readyz`).catch(() => undefined))?.ok === true, {
    what: 'svc server ready',
    process: api,
    timeoutMs: 90_000,
  });
  startRole(
    'operator',
    [
      '--leader-elect=false',
      `--watch-namespace=${org}`,
      '--sync-period=10m',
      '--webhook-bind-address=127.0.0.1:0',
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
    ],
    { SVC_SERVER_URL: server },
  );
  // The operator asks the server for the org's settings and the repository's credentials: the org must exist there.
  user = new SvcHttp(server);
  expect((await user.signUp(`${slug}@example.test`, 'Ada')).status).toBe(200);
  expect((await user.createOrg('Tracing', slug)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  for (const p of processes) await p.stop().catch(() => undefined);
  await collector?.stop();
  await git?.stop();
  await deleteNamespaces(org, destination);
  if (dir) removeTempDir(dir);
});

/** Waits until the collector has received a span that `match` accepts; answers every span received by then. */
async function spansOnce(what: string, match: (s: ReceivedSpan, all: ReceivedSpan[]) => boolean) {
  return waitUntil(
    () => {
      const all = collector.spans();
      return all.some((s) => match(s, all)) ? all : undefined;
    },
    { what, timeoutMs: 30_000, intervalMs: 250 },
  );
}

describe('tracing over OTLP to a real collector', () => {
  it('traces API requests, under the caller’s traceparent when it sends one', async () => {
    const traceId = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    const res = await fetch(`${server}/api/v1/apps`, { headers: { traceparent: `00-${traceId}-${parent}-01` } });
    expect(res.status).toBe(401);
    const all = await spansOnce('the API request span', (s) => s.traceId === traceId);
    const span = all.find((s) => s.traceId === traceId);
    expect(span).toMatchObject({
      service: 'svc-api',
      name: 'GET /api/v1/apps',
      kind: 2,
      parentSpanId: parent,
      attributes: { 'http.request.method': 'GET', 'http.route': '/api/v1/apps', 'http.response.status_code': 401 },
    });
    // The org's creation through the auth component, a root span of its own (no traceparent sent).
    const orgCreated = all.find((s) => s.name === 'POST /api/auth/*' || s.name.startsWith('POST /api/auth/'));
    expect(orgCreated).toMatchObject({ service: 'svc-api', kind: 2, parentSpanId: '' });
  });

  it('traces a reconcile: its stages, git, the internal channel into the server, and the Events’ trace id', async () => {
    const repo = await git.createRepo(`${slug}-traced`, { 'm/cm.yaml': configMapYaml('traced') });
    const created = await user.call('POST', '/api/v1/apps', {
      name: 'traced',
      namespace: destination,
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      sync_policy: { automated: true },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await spansOnce(
      'the span of the App’s creation',
      (s) => s.name === 'POST /api/v1/apps' && s.attributes['http.response.status_code'] === 201,
    );
    await waitForApp(org, 'traced', 'synced', (a) => a.status?.syncStatus === 'Synced');
    const events = await eventsOnceReported(org, 'traced', 'Synced');
    const synced = events.find((e) => e.reason === 'Synced');
    const eventTrace = synced?.metadata?.annotations?.[TRACE_ID_ANNOTATION];
    expect(eventTrace).toMatch(/^[0-9a-f]{32}$/);

    // The Event's trace is a reconcile of this App, with its stages beneath it.
    const all = await spansOnce(
      'the reconcile span of the Synced Event',
      (s, spans) =>
        s.traceId === eventTrace &&
        s.name === 'reconcile' &&
        spans.some((c) => c.traceId === eventTrace && c.name === 'reconcile.status'),
    );
    const trace = all.filter((s) => s.traceId === eventTrace);
    const reconcile = trace.find((s) => s.name === 'reconcile');
    expect(reconcile).toMatchObject({
      service: 'svc-operator',
      parentSpanId: '',
      attributes: { 'svc.app.name': 'traced', 'svc.app.namespace': org, 'svc.reconcile.result': 'success' },
    });
    const stages = trace.filter((s) => s.parentSpanId === reconcile?.spanId).map((s) => s.name);
    for (const stage of ['source', 'render', 'apply', 'health', 'status'])
      expect(stages).toContain(`reconcile.${stage}`);

    // git ran as a child process under a stage of some reconcile of the App (the first fetch may be an earlier one).
    const reconciles = new Set(all.filter((s) => s.name === 'reconcile').map((s) => s.traceId));
    const gitRuns = all.filter((s) => reconciles.has(s.traceId) && s.name.startsWith('exec git'));
    expect(gitRuns.length).toBeGreaterThan(0);
    expect(gitRuns[0]?.attributes['process.executable.name']).toBe('git');

    // The operator's calls to the server (/internal/*) are client spans; the server's span of each is their child.
    const calls = all.filter((s) => s.service === 'svc-operator' && s.kind === 3 && s.name.includes('/internal/'));
    expect(calls.length).toBeGreaterThan(0);
    const joined = await spansOnce('the server span of an internal call', (s) =>
      calls.some((c) => s.service === 'svc-api' && s.traceId === c.traceId && s.parentSpanId === c.spanId),
    );
    const answered = joined.find((s) =>
      calls.some((c) => s.service === 'svc-api' && s.traceId === c.traceId && s.parentSpanId === c.spanId),
    );
    expect(answered?.kind).toBe(2);
    expect(answered?.name).toMatch(/^(GET|POST) \/(api\/v1\/)?internal\//);
    expect(reconciles.has(answered?.traceId ?? '')).toBe(true);
  });

  it('exports nothing from a process started without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    // An SDK started anyway would send to the exporter's default endpoint, http://localhost:4318: listen there too.
    const fallback = await startOtelCollector({ port: 4318 });
    try {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const untraced = startRole('server', [], {
        SVC_LISTEN: `127.0.0.1:${port}`,
        SVC_PUBLIC_URL: base,
        SVC_DATA_DIR: join(dir, 'untraced'),
        HOME: join(dir, 'untraced'),
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        OTEL_SERVICE_NAME: 'svc-untraced',
      });
      await waitUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok === true, {
        what: 'the untraced svc server ready',
        process: untraced,
        timeoutMs: 90_000,
      });
      const traceId = randomBytes(16).toString('hex');
      const res = await fetch(`${base}/api/v1/apps`, {
        headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      });
      expect(res.status).toBe(401);
      // Several export periods (OTEL_BSP_SCHEDULE_DELAY 200 ms) pass: a traced process would have sent its spans.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      for (const received of [collector.spans(), fallback.spans()]) {
        expect(received.filter((s) => s.traceId === traceId || s.service === 'svc-untraced')).toEqual([]);
      }
      expect(fallback.spans()).toEqual([]);
    } finally {
      await fallback.stop();
    }
  });
});
