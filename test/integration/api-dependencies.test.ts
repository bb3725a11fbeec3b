/**
 * Dependencies between Apps through the API and the CLI, with the real operator: `depends_on` at create, a cycle
 * refused (422 naming it), and a blocked App telling why in GET /apps/{namespace}/{name}, its status view, `svc app
 * get` and `svc app status`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, runCli, startGitServer } from '../harness/index.ts';
import { mintKey, type OrgApi, startOrgApi } from './api-support.ts';
import {
  configMapYaml,
  deleteNamespaces,
  startTestOperator,
  stuckDeploymentYaml,
  type TestOperator,
  unique,
  waitForApp,
} from './operator-support.ts';

type Json = Record<string, unknown>;

describe('dependencies through the API and the CLI', () => {
  let org: OrgApi;
  let git: GitServer;
  let op: TestOperator;
  let home: string;
  let env: Record<string, string>;
  const dests: string[] = [];

  beforeAll(async () => {
    git = await startGitServer();
    org = await startOrgApi('deps');
    op = await startTestOperator(org.orgNs);
    await org.api.app.listen({ port: 0, host: '127.0.0.1' });
    const address = org.api.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const key = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'admin' });
    home = mkdtempSync(join(tmpdir(), 'svc-deps-'));
    env = { PATH: process.env['PATH'] ?? '', HOME: home, SVC_SERVER: `http://127.0.0.1:${port}`, SVC_API_KEY: key.key };
  });
  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await org?.api.close();
    if (home) rmSync(home, { recursive: true, force: true });
    await deleteNamespaces(org.orgNs, ...dests);
  });

  const create = async (name: string, files: Record<string, string>, extra: Json = {}) => {
    const repo = await git.createRepo(unique(name), files);
    const dest = unique('dest');
    dests.push(dest);
    const res = await org.api.call<Json>('POST', '/api/v1/apps', {
      cookie: org.owner.cookie,
      body: {
        name,
        namespace: dest,
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        sync_policy: { automated: true },
        ...extra,
      },
    });
    return { res, dest };
  };

  it('refuses a dependency cycle at create, naming it', async () => {
    const a = await create('cyc-a', { 'm/a.yaml': configMapYaml('a') }, { depends_on: [{ name: 'cyc-b' }] });
    expect(a.res.status).toBe(201);
    expect(a.res.body).toMatchObject({ depends_on: ['cyc-b'] });
    const b = await create('cyc-b', { 'm/a.yaml': configMapYaml('a') }, { depends_on: [{ name: 'cyc-a' }] });
    expect(b.res.status).toBe(422);
    expect(b.res.body).toEqual({ error: 'depends_on: dependency cycle: cyc-b → cyc-a → cyc-b' });
    const self = await create('cyc-s', { 'm/a.yaml': configMapYaml('a') }, { depends_on: [{ name: 'cyc-s' }] });
    expect(self.res.status).toBe(422);
    expect(self.res.body).toEqual({ error: 'depends_on: dependency cycle: cyc-s → cyc-s' });
  });

  it('a blocked App tells why in the API, svc app get and svc app status', async () => {
    await create('db', { 'm/db.yaml': stuckDeploymentYaml('db') });
    const { res, dest } = await create('api', { 'm/a.yaml': configMapYaml('a') }, { depends_on: [{ name: 'db' }] });
    expect(res.status).toBe(201);
    await waitForApp(org.orgNs, 'api', 'blocked by a Degraded db', (a) =>
      (a.status?.blockedBy ?? []).some((b) => b.app === 'db' && b.reason.startsWith('Degraded')),
    );

    const got = await org.api.call<Json>('GET', `/api/v1/apps/${dest}/api`, { cookie: org.owner.cookie });
    expect(got.body).toMatchObject({
      depends_on: ['db'],
      blocked_by: [{ app: 'db', reason: expect.stringMatching(/^Degraded: apps\/Deployment db: 0\/1 ready/) }],
      revision: '',
    });
    const status = await org.api.call<Json>('GET', `/api/v1/apps/${dest}/api/status`, { cookie: org.owner.cookie });
    expect(status.body).toMatchObject({ blocked_by: [{ app: 'db' }] });

    const shown = await runCli(['app', 'get', 'api'], env);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toMatch(/Depends on:\s+db\n/);
    expect(shown.stdout).toMatch(/Blocked by:\s+db: Degraded: apps\/Deployment db: 0\/1 ready/);
    const brief = await runCli(['app', 'status', 'api'], env);
    expect(brief.stdout).toMatch(/Blocked by:\s+db: Degraded/);
  });

  it('svc app create --depends-on writes the dependency', async () => {
    const repo = await git.createRepo(unique('cli'), { 'm/a.yaml': configMapYaml('a') });
    const dest = unique('dest');
    dests.push(dest);
    const made = await runCli(
      ['app', 'create', 'cli-dep', '-n', dest, '--repo', repo.url, '--path', 'm', '--depends-on', 'db'],
      env,
    );
    expect(made.status).toBe(0);
    const got = await org.api.call<Json>('GET', `/api/v1/apps/${dest}/cli-dep`, { cookie: org.owner.cookie });
    expect(got.body).toMatchObject({ depends_on: ['db'] });
  });
});
