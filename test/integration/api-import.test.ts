/**
 * POST /api/v1/import (issue 28, docs/migrate.md) with the real operator: Argo CD's example Applications
 * (test/fixtures/import/argocd/apps.yaml, `helm template` of argocd-example-apps' apps/ chart) pointed at a private
 * copy of that repository's guestbook, kustomize-guestbook and helm-guestbook directories on the harness git server,
 * plus a repository Secret written the way Argo CD's declarative setup writes it. The dry-run reports each mapping
 * and creates nothing; apply registers the repository (its password sealed, never answered) and creates Apps that
 * reach Synced/Healthy through it; a bad body is a 400 and text that is not YAML objects a 422, with {error}; an API key may dry-run but not register a
 * repository.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  type ChartRepo,
  type GitRepo,
  type GitServer,
  guestbookChart,
  repoRoot,
  runCli,
  startChartRepo,
  startGitServer,
  waitUntil,
} from '../harness/index.ts';
import { auditEntries, mintKey } from './api-support.ts';
import { type ImageSuite, startImageSuite } from './image-support.ts';
import { connectMcp } from './mcp-support.ts';
import { deleteNamespaces, getObject, managers, unique, waitForApp } from './operator-support.ts';

type Json = Record<string, unknown>;
const PASSWORD = 'import-argo-repo-password-5e1f9c2a7d';
const CHART_PASSWORD = 'import-flux-chart-password-8c2d4e6f1a';
const FIXTURES = join(repoRoot, 'test/fixtures/import');
const EXAMPLE_URL = 'https://github.com/argoproj/argocd-example-apps';
const EXAMPLES = ['guestbook', 'kustomize-guestbook', 'helm-guestbook'];

/** Every file under `dir`, by path relative to `root`. */
function filesOf(root: string, dir = root): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(files, filesOf(root, path));
    else files[relative(root, path)] = readFileSync(path, 'utf8');
  }
  return files;
}

describe('import from Argo CD', () => {
  let git: GitServer;
  let repo: GitRepo;
  let suite: ImageSuite;
  let charts: ChartRepo;
  const dests = Object.fromEntries(EXAMPLES.map((e) => [e, unique(e.slice(0, 8))]));
  const fluxDests = { web: unique('flux-web'), chart: unique('flux-chart'), takeover: unique('takeover') };

  /** The example Applications, pointed at the private copy; the three examples deploy to fresh namespaces. */
  const applications = () => {
    let text = readFileSync(join(FIXTURES, 'argocd/apps.yaml'), 'utf8').replaceAll(EXAMPLE_URL, repo.url);
    for (const [example, dest] of Object.entries(dests)) {
      text = text.replace(`namespace: "${example}"`, `namespace: "${dest}"`);
    }
    return text;
  };
  const repositorySecret = () =>
    [
      'apiVersion: v1',
      'kind: Secret',
      'metadata:',
      '  name: example-apps',
      '  namespace: argocd',
      '  labels:',
      '    argocd.argoproj.io/secret-type: repository',
      'stringData:',
      '  type: git',
      `  url: ${repo.url}`,
      '  username: git',
      `  password: ${PASSWORD}`,
    ].join('\n');
  const call = (body: unknown, auth: { cookie?: string; key?: string } = { cookie: suite.org.owner.cookie }) =>
    suite.org.api.call<Json>('POST', '/api/v1/import', { ...auth, body });

  beforeAll(async () => {
    git = await startGitServer({ basicAuth: { user: 'git', password: PASSWORD } });
    repo = await git.createRepo('argocd-example-apps', filesOf(join(FIXTURES, 'argocd-repo')), { branch: 'master' });
    charts = await startChartRepo({ basicAuth: { user: 'charts', password: CHART_PASSWORD } });
    await charts.publish('guestbook', guestbookChart('0.5.0'));
    suite = await startImageSuite('import', { listen: true });
  }, 90_000);
  afterAll(async () => {
    await suite?.stop();
    await git?.stop();
    await charts?.stop();
    await deleteNamespaces(...Object.values(dests), ...Object.values(fluxDests));
  });

  it('dry-runs the example Applications: each mapping, a summary, nothing created, no password', async () => {
    const res = await call({ documents: `${applications()}\n---\n${repositorySecret()}` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body['summary']).toEqual({
      objects: 15,
      mapped: 12,
      partial: 0,
      unmapped: 3,
      apps: 11,
      appsets: 0,
      repositories: 1,
      registries: 0,
      created: 0,
      failed: 0,
    });
    const entries = res.body['entries'] as Json[];
    const guestbook = entries.find((e) => (e['object'] as Json)['name'] === 'example.guestbook');
    expect(guestbook).toMatchObject({
      result: 'mapped',
      becomes: { kind: 'App', name: 'example-guestbook' },
      app: { source: { type: 'Git', git: { repoURL: repo.url, branch: 'master', path: 'guestbook' } } },
    });
    const plugin = entries.find((e) => (e['object'] as Json)['name'] === 'example.plugin-nix');
    expect(plugin).toMatchObject({ result: 'unmapped', reason: expect.stringMatching(/plugin/) });
    const secret = entries.find((e) => (e['object'] as Json)['kind'] === 'Secret');
    expect(secret).toMatchObject({ repository: { name: 'example-apps', has_password: true, username: 'git' } });
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    expect(res.body['applied']).toBe(false);
    const apps = await suite.org.api.call<Json>('GET', '/api/v1/apps', { cookie: suite.org.owner.cookie });
    expect(apps.body['apps']).toEqual([]);
  });

  it('answers 400 for a body without documents, 422 for text that is not YAML objects', async () => {
    for (const [body, status] of [
      [{}, 400],
      [{ documents: 'x', apply: 'yes' }, 400],
      [{ documents: 'kind: [' }, 422],
      [{ documents: '- a\n- b' }, 422],
    ] as const) {
      const res = await call(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(typeof res.body['error']).toBe('string');
    }
  });

  it('reads 1,000,000 characters however they are escaped: one more is a 400 from the schema, not a 413', async () => {
    // Every character as a \u escape: 6 bytes each, the most JSON can spend on the longest text the schema accepts.
    const escaped = (n: number) => `{"documents":"${'\\u0086'.repeat(n)}"}`;
    const send = (body: string) =>
      suite.org.api.call<Json>('POST', '/api/v1/import', {
        cookie: suite.org.owner.cookie,
        body,
        headers: { 'content-type': 'application/json' },
      });
    const longest = await send(escaped(1_000_000));
    expect(longest.status).toBe(422);
    const over = await send(escaped(1_000_001));
    expect(over.status).toBe(400);
    expect(String(over.body['error'])).toMatch(/documents/);
  });

  it('lets an API key dry-run, not register a repository', async () => {
    const { key } = await mintKey(suite.org.api, { cookie: suite.org.owner.cookie }, { role: 'admin' });
    const dry = await call({ documents: repositorySecret() }, { key });
    expect(dry.status).toBe(200);
    const applied = await call({ documents: repositorySecret(), apply: true }, { key });
    expect(applied.status).toBe(200);
    expect(applied.body['entries']).toMatchObject([
      { applied: { status: 'failed', error: expect.stringMatching(/session/) } },
    ]);
    expect(JSON.stringify(applied.body)).not.toContain(PASSWORD);
  });

  it('svc import -f <dir> dry-runs Flux objects as a table; the MCP tool answers the same report', async () => {
    const { key } = await mintKey(suite.org.api, { cookie: suite.org.owner.cookie }, { role: 'read' });
    const home = mkdtempSync(join(tmpdir(), 'svc-import-'));
    try {
      const env = { PATH: process.env['PATH'] ?? '', HOME: home, SVC_SERVER: suite.serverURL, SVC_API_KEY: key };
      const run = await runCli(['import', '-f', join(FIXTURES, 'flux')], env);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^OBJECT +RESULT +BECOMES +WHY \/ UNSUPPORTED$/m);
      expect(run.stdout).toMatch(
        /^HelmRelease\/cert-manager\/cert-manager +partial +App cert-manager +\d+ unsupported fields/m,
      );
      expect(run.stdout).toMatch(/^ImagePolicy\/flux-system\/podinfo +unmapped +svc has no image policies/m);
      expect(run.stdout).toMatch(/objects: .* mapped, .* unmapped .*\(dry-run: nothing created; --apply creates\)/);
      expect(run.stdout).not.toContain('ghcr-token-9b1e7d3a5c0f');
      const json = JSON.parse(
        (await runCli(['import', '-f', join(FIXTURES, 'flux/cert-manager.yaml'), '-o', 'json'], env)).stdout,
      );
      expect(json).toMatchObject({ applied: false, summary: { objects: 3, apps: 1 } });
      const session = await connectMcp(suite.serverURL, key);
      const documents = readFileSync(join(FIXTURES, 'flux/cert-manager.yaml'), 'utf8');
      const result = await session.call('import_dry_run', { documents });
      await session.close();
      const brief = (entries: Json[]) => entries.map((e) => [e['object'], e['result'], e['becomes'], e['reason']]);
      const mcp = result.structuredContent as { summary: Json; entries: Json[] };
      expect(mcp.summary).toEqual(json.summary);
      expect(brief(mcp.entries)).toEqual(brief(json.entries));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('applies: the repository holds the password, the Apps reach Synced/Healthy through it', async () => {
    const wanted = EXAMPLES.map((e) => `name: "example.${e}"`);
    const docs = applications()
      .split(/^---$/m)
      .filter((d) => wanted.some((w) => d.includes(w)));
    expect(docs).toHaveLength(3);
    const res = await call({ documents: [...docs, repositorySecret()].join('\n---\n'), apply: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body['summary']).toMatchObject({ objects: 4, apps: 3, repositories: 1, created: 4, failed: 0 });
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    const repos = await suite.org.api.call<Json>('GET', '/api/v1/repositories', { cookie: suite.org.owner.cookie });
    expect(repos.body['repositories']).toMatchObject([{ name: 'example-apps', has_password: true }]);
    for (const example of EXAMPLES) {
      const app = await waitForApp(
        suite.org.orgNs,
        `example-${example}`,
        `example-${example} Synced/Healthy`,
        (a) => a.status?.syncStatus === 'Synced' && a.status?.healthStatus === 'Healthy',
        120_000,
      );
      expect(app.spec.destination.namespace).toBe(dests[example]);
      expect(app.status?.revision).toBe(await repo.head('master'));
    }
    const again = await call({ documents: [...docs, repositorySecret()].join('\n---\n'), apply: true });
    expect(again.body['summary']).toMatchObject({ created: 0, failed: 4 });
    for (const e of again.body['entries'] as Json[]) {
      expect(e['applied']).toMatchObject({ status: 'failed', error: expect.stringMatching(/exists|taken/) });
    }
    // The git server refuses anonymous reads: the Apps got there with the imported credentials.
    expect(git.requests.some((r) => r.authorized === true)).toBe(true);
  });

  it("applies Argo CD's git directories ApplicationSet as an AppSet: audited, one App per directory", async () => {
    const documents = readFileSync(join(FIXTURES, 'argocd-appsets/git-directories-example.yaml'), 'utf8')
      .replaceAll('https://github.com/argoproj/argo-cd.git', repo.url)
      .replace('revision: HEAD', 'revision: master')
      .replace('targetRevision: HEAD', 'targetRevision: master')
      .replace('applicationset/examples/git-generator-directory/cluster-addons/*', "'*guestbook'");
    const dry = await call({ documents });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body['entries']).toMatchObject([
      { result: 'partial', becomes: { kind: 'AppSet', name: 'cluster-addons' } },
    ]);
    const res = await call({ documents, apply: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body['summary']).toMatchObject({ objects: 1, appsets: 1, created: 1, failed: 0 });
    expect((await auditEntries(suite.org.api, suite.org.owner, 'appset.create', 'cluster-addons')).length).toBe(1);
    const get = () =>
      suite.org.api.call<Json>('GET', '/api/v1/appsets/cluster-addons', { cookie: suite.org.owner.cookie });
    // The operator reads the private copy through the repository the previous test imported.
    await waitUntil(async () => ((await get()).body['apps'] as Json[] | undefined)?.length === 3, {
      timeoutMs: 60_000,
      what: 'the AppSet generated three Apps',
    });
    const set = (await get()).body;
    expect(set['errors']).toEqual([]);
    expect((set['apps'] as Json[]).map((a) => [a['name'], a['namespace']]).sort()).toEqual([
      ['guestbook', 'guestbook'],
      ['helm-guestbook', 'helm-guestbook'],
      ['kustomize-guestbook', 'kustomize-guestbook'],
    ]);
    const again = await call({ documents, apply: true });
    expect(again.body['entries']).toMatchObject([{ applied: { status: 'failed' } }]);
    const del = await suite.org.api.call('DELETE', '/api/v1/appsets/cluster-addons', {
      cookie: suite.org.owner.cookie,
    });
    expect(del.body).toEqual({ deleted: true, name: 'cluster-addons' });
  });

  it('applies Flux: a Kustomization and a HelmRelease with their private sources become Apps, Synced/Healthy', async () => {
    const documents = [
      'apiVersion: v1',
      'kind: Secret',
      'metadata: { name: git-auth, namespace: flux-system }',
      'type: Opaque',
      `stringData: { username: git, password: ${PASSWORD} }`,
      '---',
      'apiVersion: source.toolkit.fluxcd.io/v1',
      'kind: GitRepository',
      'metadata: { name: flux-example-apps, namespace: flux-system }',
      'spec:',
      '  interval: 1m',
      `  url: ${repo.url}`,
      '  ref: { branch: master }',
      '  secretRef: { name: git-auth }',
      '---',
      'apiVersion: kustomize.toolkit.fluxcd.io/v1',
      'kind: Kustomization',
      'metadata: { name: guestbook-web, namespace: flux-system }',
      'spec:',
      '  interval: 10m',
      '  path: ./kustomize-guestbook',
      '  prune: true',
      '  sourceRef: { kind: GitRepository, name: flux-example-apps }',
      `  targetNamespace: ${fluxDests.web}`,
      '---',
      'apiVersion: v1',
      'kind: Secret',
      'metadata: { name: chart-auth, namespace: flux-system }',
      `data: { username: ${Buffer.from('charts').toString('base64')}, password: ${Buffer.from(CHART_PASSWORD).toString('base64')} }`,
      '---',
      'apiVersion: source.toolkit.fluxcd.io/v1',
      'kind: HelmRepository',
      'metadata: { name: charts, namespace: flux-system }',
      `spec: { interval: 5m, url: ${charts.url}, secretRef: { name: chart-auth } }`,
      '---',
      'apiVersion: helm.toolkit.fluxcd.io/v2',
      'kind: HelmRelease',
      'metadata: { name: guestbook-chart, namespace: flux-system }',
      'spec:',
      '  interval: 10m',
      `  targetNamespace: ${fluxDests.chart}`,
      '  chart:',
      '    spec:',
      '      chart: guestbook',
      '      version: 0.5.x',
      '      sourceRef: { kind: HelmRepository, name: charts }',
    ].join('\n');
    const res = await call({ documents, apply: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body['summary']).toMatchObject({ objects: 6, apps: 2, repositories: 2, created: 4, failed: 0 });
    const text = JSON.stringify(res.body);
    for (const secret of [PASSWORD, CHART_PASSWORD, Buffer.from(CHART_PASSWORD).toString('base64')]) {
      expect(text).not.toContain(secret);
    }
    const byName = (name: string) =>
      (res.body['entries'] as Json[]).find((e) => (e['object'] as Json)['name'] === name);
    expect(byName('git-auth')).toMatchObject({ partOf: [{ kind: 'Repository', name: 'flux-example-apps' }] });
    expect(byName('charts')).toMatchObject({
      becomes: { kind: 'Repository', name: 'charts' },
      applied: { status: 'created' },
    });
    for (const name of ['guestbook-web', 'guestbook-chart']) {
      await waitForApp(
        suite.org.orgNs,
        name,
        `${name} Synced/Healthy`,
        (a) => a.status?.syncStatus === 'Synced' && a.status?.healthStatus === 'Healthy',
        120_000,
      );
    }
    const chartApp = await waitForApp(
      suite.org.orgNs,
      'guestbook-chart',
      'chart revision',
      (a) => !!a.status?.revision,
    );
    expect(chartApp.status?.revision).toMatch(/^guestbook@0\.5\.0@sha256:/);
    expect(charts.requests.some((r) => r.authorized)).toBe(true);
  });

  it('takes over objects Argo CD applied (its field manager) without a new generation, ReplicaSet or Pod', async () => {
    const dest = fluxDests.takeover;
    const client = suite.org.kube.client;
    const apply = (path: string, body: Json) =>
      client.request(path, {
        method: 'PATCH',
        query: { fieldManager: 'argocd-controller', force: true },
        contentType: 'application/apply-patch+yaml',
        body,
      });
    await apply(`/api/v1/namespaces/${dest}`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: dest } });
    // As Argo CD applies them: the manifests of the guestbook directory, with its tracking label.
    const tracking = { 'app.kubernetes.io/instance': 'guestbook' };
    for (const file of ['guestbook-ui-deployment.yaml', 'guestbook-ui-svc.yaml']) {
      const obj = parse(readFileSync(join(FIXTURES, 'argocd-repo/guestbook', file), 'utf8')) as {
        kind: string;
        metadata: Json;
      };
      obj.metadata = { ...obj.metadata, namespace: dest, labels: tracking };
      const path =
        obj.kind === 'Deployment'
          ? `/apis/apps/v1/namespaces/${dest}/deployments/guestbook-ui`
          : `/api/v1/namespaces/${dest}/services/guestbook-ui`;
      await apply(path, obj as unknown as Json);
    }
    const pods = async () => {
      const list = await client.request<{ items: Array<{ metadata: { uid: string } }> }>(
        `/api/v1/namespaces/${dest}/pods`,
        { query: { labelSelector: 'app=guestbook-ui' } },
      );
      return list.items.map((p) => p.metadata.uid).sort();
    };
    const replicaSets = async () => {
      const list = await client.request<{ items: Array<{ metadata: { name: string } }> }>(
        `/apis/apps/v1/namespaces/${dest}/replicasets`,
        { query: { labelSelector: 'app=guestbook-ui' } },
      );
      return list.items.map((r) => r.metadata.name).sort();
    };
    await waitUntil(async () => ((await pods()).length === 1 ? true : undefined), { what: 'the guestbook Pod' });
    const podsBefore = await pods();
    const setsBefore = await replicaSets();
    const before = await getObject('apps/v1', 'Deployment', dest, 'guestbook-ui');
    expect(managers(before)).toContain('argocd-controller');
    expect(managers(before)).not.toContain('svc-operator');

    const documents = applications()
      .split(/^---$/m)
      .filter((d) => d.includes('name: "example.guestbook"'))[0]
      ?.replace('name: "example.guestbook"', 'name: "takeover-guestbook"')
      .replace(`namespace: "${dests['guestbook']}"`, `namespace: "${dest}"`);
    // With the repository Secret, so the test stands alone (run after the others, its repository exists already).
    const res = await call({ documents: `${documents}\n---\n${repositorySecret()}`, apply: true });
    expect(res.body['summary'], JSON.stringify(res.body)).toMatchObject({ apps: 1 });
    expect((res.body['entries'] as Json[])[0]).toMatchObject({ applied: { status: 'created' } });
    await waitForApp(
      suite.org.orgNs,
      'takeover-guestbook',
      'takeover-guestbook Synced/Healthy',
      (a) => a.status?.syncStatus === 'Synced' && a.status?.healthStatus === 'Healthy',
      120_000,
    );
    const after = await getObject('apps/v1', 'Deployment', dest, 'guestbook-ui');
    expect(managers(after)).toContain('svc-operator');
    expect(after?.metadata.generation).toBe(before?.metadata.generation);
    expect(await replicaSets()).toEqual(setsBefore);
    expect(await pods()).toEqual(podsBefore);
  });
});
