/**
 * The org catalog end to end (issue 27 item 4): a template over a real chart (the harness chart repository: helm
 * package + helm repo index), written through /api/v1/catalog, an App made from it with params, deployed by the real
 * operator running apart (it reads the template over the internal HTTP channel), the params visible in the live
 * objects; bad params answer 400 with the schema's message, an unknown template 422; a new template version rolls
 * the App forward, the history holds both, and a rollback renders the old version again.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { runCli } from '../harness/cli.ts';
import { type ChartRepo, type GitServer, guestbookChart, startChartRepo, startGitServer } from '../harness/index.ts';
import { auditEntries, mintKey } from './api-support.ts';
import { type ImageSuite, startImageSuite } from './image-support.ts';
import { connectMcp } from './mcp-support.ts';
import { deleteNamespaces, getObject, unique, waitForApp } from './operator-support.ts';

type Json = Record<string, unknown>;

describe('catalog templates end to end', () => {
  let charts: ChartRepo;
  let git: GitServer;
  let suite: ImageSuite;
  const dest = unique('catalog');
  const gitDest = unique('catalog-git');

  beforeAll(async () => {
    [charts, git] = await Promise.all([startChartRepo(), startGitServer()]);
    await charts.publish('guestbook', guestbookChart('1.0.0'));
    suite = await startImageSuite('catalog', { channel: 'http' });
  }, 90_000);
  afterAll(async () => {
    await suite?.stop();
    await Promise.all([charts?.stop(), git?.stop()]);
    await deleteNamespaces(dest, gitDest);
  });

  const call = (method: string, path: string, body?: unknown) =>
    suite.org.api.call<Json>(method, `/api/v1${path}`, {
      cookie: suite.org.owner.cookie,
      ...(body === undefined ? {} : { body }),
    });

  const template = (message: string) => ({
    name: 'guestbook',
    description: 'the guestbook service',
    source: {
      type: 'HelmChart',
      helmChart: {
        repoURL: charts.url,
        chart: 'guestbook',
        version: '1.x',
        values: { message: `${message} {{ greeting }}`, replicas: '{{ replicas }}' },
      },
    },
    params_schema: {
      type: 'object',
      properties: {
        greeting: { type: 'string', description: 'who is greeted', maxLength: 20 },
        replicas: { type: 'integer', minimum: 1, maximum: 3, default: 1 },
      },
      required: ['greeting'],
    },
  });

  const settled = (what: string, check: (a: AppResource) => boolean) =>
    waitForApp(suite.org.orgNs, 'shop', what, (a) => check(a) && a.status?.syncStatus === 'Synced', 90_000);
  const settings = async () =>
    ((await getObject('v1', 'ConfigMap', dest, 'shop-settings')) as unknown as { data: Json }).data;
  const replicas = async () =>
    ((await getObject('apps/v1', 'Deployment', dest, 'shop')) as unknown as { spec: { replicas: number } }).spec
      .replicas;

  it('writes a template (201, audited), refuses a placeholder naming no param (422), lists and reads it', async () => {
    const created = await call('POST', '/catalog', template('hello'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: 'guestbook', version: 1 });
    const bad = template('hello');
    bad.source.helmChart.values.message = '{{ nobody }}';
    const refused = await call('POST', '/catalog', { ...bad, name: 'broken' });
    expect(refused.status).toBe(422);
    expect(String(refused.body['error'])).toContain('unknown placeholder {{ nobody }}');
    const listed = await call('GET', '/catalog');
    expect((listed.body['templates'] as Json[]).map((t) => t['name'])).toEqual(['guestbook']);
    expect((await call('GET', '/catalog/guestbook')).body).toMatchObject({
      version: 1,
      params_schema: { type: 'object' },
    });
    expect((await call('GET', '/catalog/nope')).status).toBe(404);
    const audit = await auditEntries(suite.org.api, suite.org.owner, 'catalog.put', 'guestbook');
    expect(audit[0]?.['details']).toMatchObject({ created: true, version: 1 });
  });

  it("refuses an App whose params the schema refuses (400 with the schema's message) or naming no template (422)", async () => {
    const app = (catalog: Json) => ({ name: 'shop', namespace: dest, source: { type: 'Catalog', catalog } });
    const tooMany = await call(
      'POST',
      '/apps',
      app({ template: 'guestbook', params: { greeting: 'x', replicas: '9' } }),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body['error']).toContain('params.replicas must be <= 3');
    const missing = await call('POST', '/apps', app({ template: 'guestbook', params: { replicas: '2' } }));
    expect(missing.status).toBe(400);
    expect(missing.body['error']).toContain('params.greeting is required');
    const unknown = await call('POST', '/apps', app({ template: 'nope', params: {} }));
    expect(unknown.status).toBe(422);
    expect(unknown.body['error']).toContain('template "nope" is not in the org catalog');
  });

  it('deploys an App from the template with its params, rolls forward to a new version, and rolls back', async () => {
    const res = await call('POST', '/apps', {
      name: 'shop',
      namespace: dest,
      source: { type: 'Catalog', catalog: { template: 'guestbook', params: { greeting: 'world', replicas: '2' } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await call('POST', `/apps/${dest}/shop/sync`, {})).status).toBe(200);
    const first = await settled('shop at v1', (a) =>
      /^guestbook@v1\/guestbook@1\.0\.0@sha256:/.test(a.status?.revision ?? ''),
    );
    expect(await settings()).toMatchObject({ message: 'hello world', chartVersion: '1.0.0' });
    // The typed param: replicas is the number 2 in the chart's values.
    expect(await replicas()).toBe(2);

    const updated = await call('POST', '/catalog', template('goodbye'));
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: 2 });
    expect((await call('POST', `/apps/${dest}/shop/sync`, {})).status).toBe(200);
    const second = await settled('shop at v2', (a) => (a.status?.revision ?? '').startsWith('guestbook@v2/'));
    expect(await settings()).toMatchObject({ message: 'goodbye world' });

    const history = await call('GET', `/apps/${dest}/shop/history`);
    expect(history.body['revision']).toBe(second.status?.revision);
    expect(history.body['previous_revisions']).toContain(first.status?.revision);

    const back = await call('POST', `/apps/${dest}/shop/rollback`, { revision: first.status?.revision });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    // Applied at v1 again; OutOfSync with the template's v2 head, as a rollback of a Git App is with its branch.
    await waitForApp(suite.org.orgNs, 'shop', 'shop back at v1', (a) => a.status?.revision === first.status?.revision);
    expect(await settings()).toMatchObject({ message: 'hello world' });
  });

  it('deletes a template (audited); its versions stay for the history', async () => {
    expect((await call('DELETE', '/catalog/guestbook')).body).toEqual({ deleted: true });
    expect((await call('GET', '/catalog/guestbook')).status).toBe(404);
    const audit = await auditEntries(suite.org.api, suite.org.owner, 'catalog.delete', 'guestbook');
    expect(audit[0]?.['details']).toMatchObject({ version: 2 });
    const again = await call('POST', '/catalog', template('again'));
    expect(again.body).toMatchObject({ version: 3 });
  });

  it('svc catalog create -f (YAML), list, get and delete, with an API key', async () => {
    const { key } = await mintKey(suite.org.api, { cookie: suite.org.owner.cookie }, { role: 'admin' });
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: '/nonexistent',
      SVC_SERVER: suite.serverURL,
      SVC_API_KEY: key,
    };
    const file = join(mkdtempSync(join(tmpdir(), 'catalog-cli-')), 'web.yaml');
    writeFileSync(
      file,
      [
        'name: cli-web',
        'description: raw manifests',
        'source:',
        '  type: Git',
        '  git: { repoURL: "https://git.example.com/team/web.git", path: "apps/{{ app }}" }',
        'params_schema:',
        '  type: object',
        '  required: [app]',
        '  properties:',
        '    app: { type: string, description: the directory }',
        '',
      ].join('\n'),
    );
    const created = await runCli(['catalog', 'create', '-f', file], env);
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(/Version:\s+1\n/);
    const listed = await runCli(['catalog', 'list'], env);
    expect(listed.stdout).toMatch(
      /cli-web\s+1\s+git https:\/\/git\.example\.com\/team\/web\.git apps\/\{\{ app \}\}\s+app\n/,
    );
    const got = await runCli(['catalog', 'get', 'cli-web'], env);
    expect(got.stdout).toMatch(/app \(string, required\): the directory/);
    expect((await runCli(['catalog', 'delete', 'cli-web'], env)).stdout).toContain('template cli-web deleted');
    const gone = await runCli(['catalog', 'get', 'cli-web'], env);
    expect(gone.status).not.toBe(0);
    expect(gone.stderr).toContain('catalog template "cli-web" not found');
  });

  it('a Git template: a param picks the path, another reaches raw manifests through substitution; the history names the commit', async () => {
    const repo = await git.createRepo(unique('catalog-repo'), {
      'apps/web/cm.yaml':
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${GREETING} is the substitution the template maps into
        'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: web }\ndata: { greeting: "${GREETING}" }\n',
    });
    const written = await call('POST', '/catalog', {
      name: 'raw',
      source: {
        type: 'Git',
        git: { repoURL: repo.url, path: 'apps/{{ app }}', substitution: { GREETING: 'hi {{ who }}' } },
      },
      params_schema: {
        type: 'object',
        required: ['app', 'who'],
        properties: { app: { type: 'string', enum: ['web'] }, who: { type: 'string' } },
      },
    });
    expect(written.status, JSON.stringify(written.body)).toBe(201);
    const res = await call('POST', '/apps', {
      name: 'raw',
      namespace: gitDest,
      source: { type: 'Catalog', catalog: { template: 'raw', params: { app: 'web', who: 'ada' } } },
      sync_policy: { automated: true },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await waitForApp(
      suite.org.orgNs,
      'raw',
      'raw synced',
      (a) => (a.status?.revision ?? '').startsWith('raw@v1/'),
      90_000,
    );
    const cm = (await getObject('v1', 'ConfigMap', gitDest, 'web')) as unknown as { data: Json };
    expect(cm.data).toEqual({ greeting: 'hi ada' });
    const history = await call('GET', `/apps/${gitDest}/raw/history`);
    expect((history.body['revisions'] as Json[])[0]).toMatchObject({ subject: expect.any(String) });
  });

  it('MCP: catalog_list shows the templates, app_create_from_catalog and app_create_helm_chart create Apps, refused params are a tool error', async () => {
    const { key } = await mintKey(suite.org.api, { cookie: suite.org.owner.cookie }, { role: 'admin' });
    const mcp = await connectMcp(suite.serverURL, key);
    const callTool = (name: string, args: Json) => mcp.call(name, args);
    try {
      const listed = await callTool('catalog_list', {});
      expect(JSON.stringify(listed.structuredContent)).toContain('"guestbook"');
      const created = await callTool('app_create_from_catalog', {
        name: 'mcp-shop',
        namespace: dest,
        template: 'guestbook',
        params: { greeting: 'mcp', replicas: '1' },
      });
      expect(created.structuredContent, JSON.stringify(created)).toEqual({
        created: true,
        name: 'mcp-shop',
        namespace: dest,
      });
      const refused = await callTool('app_create_from_catalog', {
        name: 'mcp-shop-2',
        namespace: dest,
        template: 'guestbook',
        params: { greeting: 'mcp', replicas: '9' },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('params.replicas must be <= 3');
      const chart = await callTool('app_create_helm_chart', {
        name: 'mcp-chart',
        namespace: dest,
        repo_url: charts.url,
        chart: 'guestbook',
        version: '1.x',
      });
      expect(chart.structuredContent, JSON.stringify(chart)).toEqual({
        created: true,
        name: 'mcp-chart',
        namespace: dest,
      });
    } finally {
      await mcp.close();
    }
    const apps = await call('GET', '/apps');
    const byName = new Map((apps.body['apps'] as Json[]).map((a) => [a['name'], a]));
    expect(byName.get('mcp-shop')).toMatchObject({ source: { type: 'Catalog', catalog: { template: 'guestbook' } } });
    expect(byName.get('mcp-chart')).toMatchObject({ source: { type: 'HelmChart', helmChart: { chart: 'guestbook' } } });
    expect(byName.has('mcp-shop-2')).toBe(false);
  });
});
