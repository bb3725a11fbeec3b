/**
 * Custom health checks in CEL, end to end: an App's own check (spec.health.checks) and an org's check
 * (/api/v1/health-checks, reaching an operator run apart over the internal channel's HTTP routes) turn an App
 * Degraded with a reason naming the object and the expression that matched; bad expressions are refused at write
 * time with their compile error (API) or stall the App (written with kubectl); a hostile expression that passes
 * the write-time limits is cut off by the sandbox's cost limit while the operator goes on. And `svc app sync --wait`
 * on an App whose Certificate fails ends Degraded with exit code 1.
 */

import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { type GitServer, runCli, startGitServer } from '../harness/index.ts';
import { mintKey, type OrgApi, startOrgApi } from './api-support.ts';
import {
  createApp,
  deleteNamespaces,
  startTestOperator,
  type TestOperator,
  unique,
  waitForApp,
} from './operator-support.ts';

type Json = Record<string, unknown>;

const prometheus = (version: string) =>
  `apiVersion: monitoring.coreos.com/v1\nkind: Prometheus\nmetadata: {name: main}\nspec: {version: ${version}}\n`;
const nodePort =
  'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {type: NodePort, selector: {app: web}, ports: [{port: 80}]}\n';
const certificate = (issuer: string) =>
  `apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web}\nspec: {secretName: web-tls, dnsNames: [web.example.test], issuerRef: {name: ${issuer}}}\n`;
/** A ConfigMap with `n` annotations: a nested comprehension over them costs n² steps. */
const annotated = (n: number) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  annotations:\n${Array.from({ length: n }, (_, i) => `    a${i}.example.test/k: "v"`).join('\n')}\n`;

describe('custom health checks in CEL', () => {
  let org: OrgApi;
  let op: TestOperator;
  let git: GitServer;
  let cliEnv: Record<string, string>;
  const dests: string[] = [];
  const owner = () => ({ cookie: org.owner.cookie });

  beforeAll(async () => {
    const token = randomBytes(32).toString('hex');
    git = await startGitServer();
    org = await startOrgApi('hcel', { SVC_OPERATOR_TOKEN: token });
    await org.api.app.listen({ host: '127.0.0.1', port: 0 });
    const serverURL = `http://127.0.0.1:${(org.api.app.server.address() as AddressInfo).port}`;
    op = await startTestOperator(org.orgNs, {
      env: { SVC_SERVER_URL: serverURL, SVC_OPERATOR_TOKEN: token },
      orgChecksTtlMs: 500,
    });
    const key = await mintKey(org.api, owner(), { role: 'admin' });
    cliEnv = { PATH: process.env['PATH'] ?? '', HOME: op.dataDir, SVC_SERVER: serverURL, SVC_API_KEY: key.key };
  });
  afterAll(async () => {
    await op?.stop();
    await org?.api.close();
    await git?.stop();
    await deleteNamespaces(org.orgNs, ...dests);
  });

  /** Creates a Git App through the API (automated sync) from a repo holding `files`; answers the repo. */
  async function gitApp(name: string, manifests: string, extra: Json = {}) {
    const repo = await git.createRepo(unique(name), { 'm/objects.yaml': manifests });
    const dest = unique('dest');
    dests.push(dest);
    const res = await org.api.call('POST', '/api/v1/apps', {
      ...owner(),
      body: { name, namespace: dest, source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } }, ...extra },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return repo;
  }
  const health = (value: string) => (a: AppResource) =>
    a.status?.healthStatus === value && a.status.syncStatus === 'Synced';

  it("an App's own check decides its objects' health over the built-in one, and the reason names the object", async () => {
    const checks = [
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'Prometheus',
        failed: "has(spec.version) && spec.version.startsWith('v2.')",
        current: "status.conditions.exists(c, c.type == 'Available' && c.status == 'True')",
      },
    ];
    const repo = await gitApp('own', prometheus('v3.5.0'), { sync_policy: { automated: true }, health: { checks } });
    await waitForApp(org.orgNs, 'own', 'Healthy', health('Healthy'));
    // The plane's Prometheus Operator (kwok) calls a v2 Prometheus Available; the App's check does not.
    await repo.commit({ 'm/objects.yaml': prometheus('v2.55.0') }, 'old prometheus');
    const degraded = await waitForApp(org.orgNs, 'own', 'Degraded by the check', health('Degraded'));
    expect(degraded.status?.healthReason).toBe(
      "monitoring.coreos.com/Prometheus main: custom check failed: has(spec.version) && spec.version.startsWith('v2.')",
    );
  });

  it("an org's check reaches the operator over the internal channel, and stops applying once deleted", async () => {
    const created = await org.api.call<Json>('POST', '/api/v1/health-checks', {
      ...owner(),
      body: { api_version: 'v1', kind: 'Service', failed: "spec.type == 'NodePort'", current: 'true' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ api_version: 'v1', kind: 'Service', failed: "spec.type == 'NodePort'" });
    const listed = await org.api.call<Json>('GET', '/api/v1/health-checks', owner());
    expect(listed.body['health_checks']).toHaveLength(1);

    await gitApp('org', nodePort, { sync_policy: { automated: true } });
    const degraded = await waitForApp(org.orgNs, 'org', 'Degraded by the org check', health('Degraded'));
    expect(degraded.status?.healthReason).toBe("Service web: custom check failed: spec.type == 'NodePort'");

    const id = String(created.body['id']);
    expect((await org.api.call('DELETE', `/api/v1/health-checks/${id}`, owner())).status).toBe(200);
    await waitForApp(org.orgNs, 'org', 'Healthy once the check is gone', health('Healthy'));
    expect((await org.api.call('GET', `/api/v1/health-checks/${id}`, owner())).status).toBe(404);
  });

  it('refuses an expression that does not compile or could cost without bound, naming the problem', async () => {
    const put = (current: string) =>
      org.api.call<Json>('POST', '/api/v1/health-checks', {
        ...owner(),
        body: { api_version: 'example.com/v1', kind: 'Widget', current },
      });
    expect(await put('status.phase ==')).toMatchObject({
      status: 422,
      body: { error: expect.stringMatching(/^check\.current: /) },
    });
    expect((await put('frobnicate(status)')).body).toEqual({ error: 'check.current: unknown function "frobnicate"' });
    expect((await put('status.a.all(x, status.a.all(y, status.a.all(z, x == y && y == z)))')).body).toEqual({
      error: 'check.current: comprehensions nested deeper than 2',
    });
    const app = await org.api.call<Json>('POST', '/api/v1/apps', {
      ...owner(),
      body: {
        name: 'bad',
        namespace: unique('dest'),
        source: { type: 'Git', git: { repoURL: 'https://git.example.test/r.git', path: 'm' } },
        health: { checks: [{ apiVersion: 'v1', kind: 'Service', current: 'self.ready' }] },
      },
    });
    expect(app).toMatchObject({ status: 422, body: { error: expect.stringContaining('unknown variable "self"') } });

    // Written with kubectl (no API in between): the App stalls before anything is applied.
    const dest = unique('dest');
    dests.push(dest);
    await createApp(org.orgNs, 'stalled', {
      source: { type: 'Git', git: { repoURL: 'https://git.example.test/r.git', path: 'm' } },
      destination: { namespace: dest },
      health: { checks: [{ apiVersion: 'v1', kind: 'Service', current: 'status.x ==' }] },
    });
    const stalled = await waitForApp(org.orgNs, 'stalled', 'Stalled', (a) =>
      (a.status?.conditions ?? []).some((c) => c.type === 'Stalled' && c.status === 'True'),
    );
    const cond = stalled.status?.conditions?.find((c) => c.type === 'Stalled');
    expect(cond).toMatchObject({
      reason: 'HealthCheckFailed',
      message: expect.stringContaining('spec.health.checks[0].current'),
    });
  });

  it('cuts off an expression that passes the limits but runs too long, and goes on with the rest', async () => {
    const checks = [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        current: 'metadata.annotations.all(a, metadata.annotations.all(b, size(a) + size(b) > 0))',
      },
    ];
    await gitApp('hostile', annotated(3000), { sync_policy: { automated: true }, health: { checks } });
    const cut = await waitForApp(org.orgNs, 'hostile', 'Unknown (cut off)', health('Unknown'));
    expect(cut.status?.healthReason).toContain(
      'ConfigMap big: custom check for v1 ConfigMap cut off: it exceeded its cost limit',
    );
    // The operator still reconciles other Apps at once.
    await gitApp('after', nodePort.replace('NodePort', 'ClusterIP'), { sync_policy: { automated: true } });
    await waitForApp(org.orgNs, 'after', 'Healthy', health('Healthy'), 30_000);
  });

  it('svc health-check sets, lists and deletes org checks, and shows a compile error with exit code 2', async () => {
    const bad = await svc(['health-check', 'set', 'v1', 'ConfigMap', '--current', 'metadata.name ==']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('check.current:');
    const set = await svc([
      'health-check',
      'set',
      'v1',
      'ConfigMap',
      '--failed',
      'has(metadata.labels.broken)',
      '--current',
      'true',
    ]);
    expect(set.status, set.stderr).toBe(0);
    expect((await svc(['health-check', 'list'])).stdout).toContain('has(metadata.labels.broken)');
    expect((await svc(['health-check', 'delete', 'v1', 'ConfigMap'])).status).toBe(0);
    expect((await svc(['health-check', 'list'])).stdout).toContain('No health checks.');
  });

  it('svc app sync --wait on an App whose Certificate fails ends Degraded with exit code 1', async () => {
    await gitApp('tls', certificate('failing-issuer'));
    const dest = dests[dests.length - 1] as string;
    const result = await svc(['app', 'sync', 'tls', '-n', dest, '--wait', '--timeout', '90s']);
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(result.stdout + result.stderr).toContain('Degraded');
    expect(result.stdout + result.stderr).toContain('cert-manager.io/Certificate web: Failed');
    // svc app get shows the App's reason, naming the Certificate.
    const get = await svc(['app', 'get', 'tls', '-n', dest]);
    expect(get.stdout).toMatch(/Health:\s+Degraded \(cert-manager\.io\/Certificate web: Failed: /);
  });

  /** Runs the real `svc` executable with the org's admin key. */
  const svc = (args: string[]) => runCli(args, cliEnv);
});
