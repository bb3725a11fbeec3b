/**
 * GET /apps/{ns}/{name}/diff?revision=: a preview of a ref before it is merged, against the real plane, a real
 * operator and refs pushed to the real git server (a branch, a tag, and a pull request's `refs/pull/N/head` that no
 * branch holds). The ref is rendered through the same path as the diff and dry-run applied on the real apiserver:
 * the destination namespace has a LimitRange, so a Pod the pull request adds shows the limits the apiserver's
 * admission would give it. The answer lists exactly the objects that change; nothing is written (no object, no App
 * status change); a ref the repository does not have is a 422. The MCP tool app_diff and `svc app diff --revision`
 * (exit 0 no change, 1 changes, 2 for a ref that is not there) take the same ref. POST /preview answers the same for
 * every App built from the repository, an AppSet-generated one included, with a Markdown summary; and, for an AppSet
 * whose Git directory generator reads a repository, the Apps it would generate at a pull request's ref: the new
 * directory's App as all-added, a changed one diffed, the deleted directory's App as all-removed, each naming the
 * AppSet, with no App created and no object applied (also through the MCP tool preview and `svc preview`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_API_VERSION, APPSET_KIND } from '../../src/core/app-names.ts';
import { type GitRepo, type GitServer, startGitServer, waitUntil } from '../harness/index.ts';
import { mintKey, type OrgApi, startOrgApi } from './api-support.ts';
import { startSvc } from './cli-support.ts';
import { connectMcp } from './mcp-support.ts';
import {
  configMapYaml,
  createNamespace,
  deleteNamespaces,
  deploymentYaml,
  getApp,
  kube,
  startTestOperator,
  type TestOperator,
} from './operator-support.ts';

type Json = Record<string, any>;
const podYaml = (name: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n  - name: main\n    image: busybox:1.36\n`;

describe('preview a ref: the diff of a branch, tag or pull request against live, writing nothing', () => {
  let org: OrgApi;
  let op: TestOperator;
  let git: GitServer;
  let repo: GitRepo;
  let pullSha: string;
  const dest = `preview-${Math.random().toString(16).slice(2, 8)}`;
  const call = <T = Json>(method: string, path: string) => org.api.call<T>(method, path, { cookie: org.owner.cookie });
  const preview = (revision: string) =>
    call('GET', `/api/v1/apps/${dest}/web/diff?revision=${encodeURIComponent(revision)}`);
  const changes = (d: Json) =>
    (d['objects'] as Json[])
      .filter((o) => o['status'] !== 'same')
      .map((o) => `${o['status']} ${o['kind']}/${o['name']}`)
      .sort();
  /** What a preview must leave alone: the App's recorded state and every object in the destination. */
  const snapshot = async (name = 'web', namespace = dest) => {
    const app = await getApp(org.orgNs, name);
    const k = kube();
    const objects = [];
    for (const [apiVersion, kind] of [
      ['v1', 'ConfigMap'],
      ['v1', 'Pod'],
      ['apps/v1', 'Deployment'],
    ] as const) {
      for (const o of await k.list(apiVersion, kind, '', namespace)) {
        // The Deployment's Pods change as kwok runs them: their names only; the App's own objects exactly.
        const version = kind === 'Pod' ? '' : `@${o.metadata.resourceVersion}`;
        objects.push(`${kind}/${o.metadata.name}${version}`);
      }
    }
    const s = app?.status;
    return {
      status: [s?.revision, s?.observedRevision, s?.objectHash, s?.syncStatus, s?.operationState?.phase],
      operation: app?.spec.operation ?? null,
      objects: objects.sort(),
    };
  };

  let base: string;
  let key: string;
  /** A second repository, read by the AppSet `dirs`'s Git directory generator: one App per directory of apps/. */
  let sets: GitRepo;
  const previewOf = (repoURL: string, revision: string) =>
    org.api.call('POST', '/api/v1/preview', { cookie: org.owner.cookie, body: { repoURL, revision } });

  beforeAll(async () => {
    org = await startOrgApi('preview');
    git = await startGitServer();
    repo = await git.createRepo(`preview-${org.suffix}`, {
      'm/web.yaml': deploymentYaml('web', 1),
      'm/config.yaml': configMapYaml('settings', { mode: 'blue' }),
    });
    // The destination exists with a LimitRange: the apiserver's admission gives every new container these limits.
    await createNamespace(dest);
    await kube().apply({
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'defaults', namespace: dest },
      spec: { limits: [{ type: 'Container', default: { cpu: '250m', memory: '64Mi' } }] },
    } as never);
    op = await startTestOperator(org.orgNs);
    key = (await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'read' })).key;
    await org.api.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(org.api.app.server.address() as AddressInfo).port}`;
    const created = await org.api.call('POST', '/api/v1/apps', {
      cookie: org.owner.cookie,
      body: { name: 'web', namespace: dest, source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } } },
    });
    expect(created.status).toBe(201);
    // An AppSet generates a second App from the same repository, into its own namespace.
    const appSet = await org.api.call('POST', '/api/v1/appsets', {
      cookie: org.owner.cookie,
      body: {
        name: 'gen',
        generators: [{ list: { elements: [{ env: 'eu' }] } }],
        template: {
          metadata: { name: 'gen-{{ env }}' },
          spec: {
            source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
            destination: { namespace: `${dest}-{{ env }}` },
            syncPolicy: { automated: true },
          },
        },
      },
    });
    expect(appSet.status).toBe(201);
    expect((await call('POST', `/api/v1/apps/${dest}/web/sync`)).status).toBe(200);
    const synced = await call('GET', `/api/v1/apps/${dest}/web/status?wait=90s`);
    expect(synced.body).toMatchObject({ sync_status: 'Synced', health: 'Healthy' });
    // A pull request: one commit on a branch, pushed as refs/pull/7/head, the branch then deleted, so only the
    // pull request's ref holds it (as on a forge, for a pull request from a fork).
    await repo.commit(
      { 'm/config.yaml': configMapYaml('settings', { mode: 'green' }), 'm/probe.yaml': podYaml('probe') },
      'pr 7: green, and a probe Pod',
      { branch: 'pr-7' },
    );
    pullSha = await repo.pushPullRef(7, 'pr-7');
    await repo.deleteRef('pr-7');
    sets = await git.createRepo(`preview-sets-${org.suffix}`, {
      'apps/a/cm.yaml': configMapYaml('a', { mode: 'blue' }),
      'apps/c/cm.yaml': configMapYaml('c'),
    });
    const dirs = await org.api.call('POST', '/api/v1/appsets', {
      cookie: org.owner.cookie,
      body: {
        name: 'dirs',
        generators: [{ gitDirectories: { repoURL: sets.url, directories: [{ path: 'apps/*' }] } }],
        template: {
          metadata: { name: 'dir-{{ path.basename }}' },
          spec: {
            source: { type: 'Git', git: { repoURL: sets.url, path: '{{ path }}' } },
            destination: { namespace: `${dest}-{{ path.basename }}` },
            syncPolicy: { automated: true },
          },
        },
      },
    });
    expect(dirs.status).toBe(201);
    // Pull request 8 changes apps/a, adds apps/b and deletes apps/c.
    await sets.commit(
      {
        'apps/a/cm.yaml': configMapYaml('a', { mode: 'green' }),
        'apps/b/cm.yaml': configMapYaml('b'),
        'apps/c/cm.yaml': null,
      },
      'pr 8: a green, a new b, no c',
      { branch: 'pr-8' },
    );
    await sets.pushPullRef(8, 'pr-8');
    await sets.deleteRef('pr-8');
  });
  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await org?.api.close();
    await deleteNamespaces(dest, `${dest}-eu`, `${dest}-a`, `${dest}-b`, `${dest}-c`);
  });

  it('a pull request ref lists exactly the objects that change, with the LimitRange defaults of the dry run, and writes nothing', async () => {
    const before = await snapshot();
    const res = await preview('refs/pull/7/head');
    expect(res.status).toBe(200);
    const d = res.body;
    expect(d['revision']).toMatchObject({ ref: 'refs/pull/7/head', compared: pullSha, head: await repo.head() });
    expect(changes(d)).toEqual(['changed ConfigMap/settings', 'missing Pod/probe']);
    expect(d['summary']).toEqual({ same: 1, changed: 1, missing: 1, extra: 0 });
    expect(d['sync_status']).toBe('OutOfSync');
    const pod = (d['objects'] as Json[]).find((o) => o['kind'] === 'Pod');
    // Not in the rendered Pod: the apiserver's LimitRanger put it there during the dry run.
    expect(pod?.['desired']).toMatch(/limits:\s+cpu: 250m\s+memory: 64Mi/);
    expect(pod?.['patch']).toMatch(/^\+\s+limits:\n\+\s+cpu: 250m$/m);
    const config = (d['objects'] as Json[]).find((o) => o['kind'] === 'ConfigMap');
    expect(config?.['patch']).toMatch(/^-\s+mode: blue$/m);
    expect(config?.['patch']).toMatch(/^\+\s+mode: green$/m);
    // Nothing written: the App's recorded state and every object of the destination are as they were.
    expect(await snapshot()).toEqual(before);
    expect(await kube().get({ apiVersion: 'v1', kind: 'Pod', name: 'probe', namespace: dest })).toBeUndefined();
    // The plain diff still compares the App's own head.
    const plain = await call('GET', `/api/v1/apps/${dest}/web/diff`);
    expect(plain.body).toMatchObject({ sync_status: 'Synced', summary: { changed: 0, missing: 0, extra: 0 } });
    expect(plain.body['revision']['ref']).toBeUndefined();
  });

  it('a pull request ref moved by a new push is read again', async () => {
    await repo.commit({ 'm/probe.yaml': null }, 'pr 7: drop the probe', { branch: 'pr-7' });
    pullSha = await repo.pushPullRef(7, 'pr-7');
    await repo.deleteRef('pr-7');
    const d = (await preview('refs/pull/7/head')).body;
    expect(d['revision']['compared']).toBe(pullSha);
    expect(changes(d)).toEqual(['changed ConfigMap/settings']);
  });

  it('POST /preview: every App built from the repository, the AppSet-generated one included, with a Markdown summary; nothing written', async () => {
    await waitUntil(
      async () => (await call('GET', `/api/v1/apps/${dest}-eu/gen-eu/status`)).body['sync_status'] === 'Synced',
      { what: 'the generated App synced', timeoutMs: 90_000 },
    );
    const before = [await snapshot(), await snapshot('gen-eu', `${dest}-eu`)];
    const res = await org.api.call('POST', '/api/v1/preview', {
      cookie: org.owner.cookie,
      // The URL as a forge's webhook may spell it: no `.git`, a trailing slash.
      body: { repoURL: `${repo.url.replace(/\.git$/, '')}/`, revision: 'refs/pull/7/head' },
    });
    expect(res.status).toBe(200);
    const body = res.body as Json;
    expect(body['summary']).toEqual({ apps: 2, changed: 2, unchanged: 0, failed: 0, added: 0, removed: 0 });
    // The AppSet gen's list generator reads no repository: nothing of it is generated at the ref.
    expect(body['appsets']).toEqual([]);
    const apps = body['apps'] as Json[];
    expect(apps.map((a) => `${a['name']} ${a['namespace']} ${a['appset']} ${a['status']}`)).toEqual([
      `gen-eu ${dest}-eu gen changed`,
      `web ${dest} null changed`,
    ]);
    for (const a of apps) {
      expect(changes(a['diff']), a['name']).toEqual(['changed ConfigMap/settings']);
      expect(a['diff']['revision'], a['name']).toMatchObject({ ref: 'refs/pull/7/head', compared: pullSha });
    }
    const md = body['markdown'] as string;
    expect(md).toContain('### svc preview of `refs/pull/7/head`');
    expect(md).toContain(`| gen-eu | ${dest}-eu | gen | 1 changed, 0 added, 0 removed, 1 unchanged |`);
    expect(md).toContain('- changed ConfigMap/settings');
    expect(md).toMatch(/^\+\s+mode: green$/m);
    expect([await snapshot(), await snapshot('gen-eu', `${dest}-eu`)]).toEqual(before);

    const none = await org.api.call('POST', '/api/v1/preview', {
      cookie: org.owner.cookie,
      body: { repoURL: repo.url, revision: 'refs/pull/99/head' },
    });
    expect(none.status).toBe(422);
    expect((none.body as Json)['error']).toContain('refs/pull/99/head');
    const other = await org.api.call('POST', '/api/v1/preview', {
      cookie: org.owner.cookie,
      body: { repoURL: 'https://git.example/none.git', revision: 'main' },
    });
    expect(other.status).toBe(200);
    expect((other.body as Json)['summary']).toEqual({
      apps: 0,
      changed: 0,
      unchanged: 0,
      failed: 0,
      added: 0,
      removed: 0,
    });
  });

  it("POST /preview of an AppSet's repository: the Apps its Git directory generator would make at a pull request's ref, new, changed and removed; nothing created or applied", async () => {
    const status = (name: string) => call('GET', `/api/v1/apps/${dest}-${name.slice(4)}/${name}/status`);
    await waitUntil(
      async () =>
        (await status('dir-a')).body['sync_status'] === 'Synced' &&
        (await status('dir-c')).body['sync_status'] === 'Synced',
      { what: 'the AppSet dirs generated and synced dir-a and dir-c', timeoutMs: 90_000 },
    );
    const appSetRef = { apiVersion: APP_API_VERSION, kind: APPSET_KIND, namespace: org.orgNs, name: 'dirs' };
    const written = async () => ({
      apps: (await kube().list(APP_API_VERSION, 'App', '', org.orgNs)).map((a) => a.metadata.name).sort(),
      appSet: (await kube().get(appSetRef))?.metadata.resourceVersion,
      a: await snapshot('dir-a', `${dest}-a`),
      c: await snapshot('dir-c', `${dest}-c`),
      b: await kube().get({ apiVersion: 'v1', kind: 'Namespace', name: `${dest}-b` }),
    });
    const before = await written();
    expect(before.apps).toEqual(['dir-a', 'dir-c', 'gen-eu', 'web']);
    const res = await previewOf(sets.url, 'refs/pull/8/head');
    expect(res.status).toBe(200);
    const body = res.body as Json;
    expect(body['appsets']).toEqual([{ name: 'dirs', status: 'generated', apps: 2, errors: [] }]);
    expect(body['summary']).toEqual({ apps: 3, changed: 3, unchanged: 0, failed: 0, added: 1, removed: 1 });
    const apps = body['apps'] as Json[];
    expect(apps.map((a) => `${a['name']} ${a['namespace']} ${a['appset']} ${a['lifecycle']} ${a['status']}`)).toEqual([
      `dir-a ${dest}-a dirs existing changed`,
      `dir-b ${dest}-b dirs added changed`,
      `dir-c ${dest}-c dirs removed changed`,
    ]);
    // Exactly the objects that change: a's ConfigMap, b's all added, c's all removed.
    expect(apps.map((a) => changes(a['diff']))).toEqual([
      ['changed ConfigMap/a'],
      ['missing ConfigMap/b'],
      ['extra ConfigMap/c'],
    ]);
    expect(apps[0]?.['diff']['revision']).toMatchObject({ ref: 'refs/pull/8/head' });
    expect(apps[1]?.['diff']['revision']).toMatchObject({ ref: 'refs/pull/8/head' });
    const md = body['markdown'] as string;
    expect(md).toContain('- AppSet **dirs**: generates 2 app(s) at this ref, 1 new, 1 removed');
    expect(md).toContain(`| dir-b | ${dest}-b | dirs | new App: 0 changed, 1 added, 0 removed, 0 unchanged |`);
    expect(md).toContain(`| dir-c | ${dest}-c | dirs | App removed: 0 changed, 0 added, 1 removed, 0 unchanged |`);
    expect(md).toContain('#### dir-b (new App of AppSet dirs)');
    // Rendering the ref wrote nothing: no App created or deleted, the AppSet untouched, no object applied.
    expect(await written()).toEqual(before);
    expect(before.b).toBeUndefined();

    // The AppSet's branch itself previews as no change.
    const main = await previewOf(sets.url, 'main');
    expect((main.body as Json)['summary']).toEqual({
      apps: 2,
      changed: 0,
      unchanged: 2,
      failed: 0,
      added: 0,
      removed: 0,
    });
    // A ref the repository does not have: the AppSet and its Apps all fail on it, so the request does (422).
    const none = await previewOf(sets.url, 'refs/pull/98/head');
    expect(none.status).toBe(422);
    expect((none.body as Json)['error']).toContain('refs/pull/98/head');
    expect(await written()).toEqual(before);
  });

  it('the MCP tool app_diff takes the same revision and answers the same preview', async () => {
    const mcp = await connectMcp(base, key);
    try {
      const args = { namespace: dest, name: 'web', revision: 'refs/pull/7/head' };
      const result = await mcp.call('app_diff', args);
      const d = result.structuredContent ?? {};
      expect(d['revision']).toMatchObject({ ref: 'refs/pull/7/head', compared: pullSha });
      expect(d['summary']).toMatchObject({ changed: 1, missing: 0, extra: 0 });
      // The preview tool: POST /preview, the AppSet's new and removed Apps included.
      const previewed = await mcp.call('preview', { repoURL: sets.url, revision: 'refs/pull/8/head' });
      const p = previewed.structuredContent ?? {};
      expect(p['summary']).toMatchObject({ apps: 3, changed: 3, added: 1, removed: 1 });
      expect((p['apps'] as Json[]).map((a) => `${a['name']} ${a['appset']} ${a['lifecycle']}`)).toEqual([
        'dir-a dirs existing',
        'dir-b dirs added',
        'dir-c dirs removed',
      ]);
      expect((p['apps'] as Json[])[1]?.['objects']).toEqual([
        { kind: 'ConfigMap', namespace: `${dest}-b`, name: 'b', status: 'missing' },
      ]);
      expect(p['markdown']).toContain('#### dir-b (new App of AppSet dirs)');
    } finally {
      await mcp.close();
    }
  });

  it('svc app diff --revision and svc preview: exit 1 with changes, 0 for a ref that changes nothing, 2 for a ref that is not there', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-preview-cli-'));
    const env = { PATH: process.env['PATH'] ?? '', HOME: home, SVC_SERVER: base, SVC_API_KEY: key };
    const svc = (...args: string[]) => startSvc(['app', 'diff', `${dest}/web`, ...args], env).exited;
    try {
      const pull = await svc('--revision', 'refs/pull/7/head');
      expect(pull.status).toBe(1);
      expect(pull.stdout).toMatch(/^\+\s+mode: green$/m);
      expect(pull.stderr).toBe('web: OutOfSync: 1 changed, 0 missing, 0 extra, 1 same\n');
      const main = await svc('--revision', 'main', '-o', 'json');
      expect(main.status).toBe(0);
      expect(JSON.parse(main.stdout)['revision']).toMatchObject({ ref: 'main', compared: await repo.head() });
      // A ref the repository lacks is the caller's input (422): 2, as for every command (src/cli/client/errors.ts).
      const missing = await svc('--revision', 'no-such-branch');
      expect(missing.status).toBe(2);
      expect(missing.stderr).toContain('no-such-branch');
      // svc preview: the Markdown summary of every App built from the repository, the same exit codes.
      const preview = (revision: string) =>
        startSvc(['preview', '--repo', repo.url, '--revision', revision], env).exited;
      const all = await preview('refs/pull/7/head');
      expect(all.status).toBe(1);
      expect(all.stdout).toContain('2 app(s) built from');
      expect(all.stdout).toContain('| gen-eu |');
      expect((await preview('main')).status).toBe(0);
      expect((await preview('refs/pull/99/head')).status).toBe(2);
      const generated = await startSvc(['preview', '--repo', sets.url, '--revision', 'refs/pull/8/head'], env).exited;
      expect(generated.status).toBe(1);
      expect(generated.stdout).toContain('- AppSet **dirs**: generates 2 app(s) at this ref, 1 new, 1 removed');
      expect(generated.stdout).toContain('| dir-b |');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a branch, a tag and a commit id preview the same way; an object the ref drops shows as extra', async () => {
    const before = await snapshot();
    const sha = await repo.commit(
      { 'm/web.yaml': deploymentYaml('web', 3), 'm/config.yaml': null },
      'feature: three replicas, no config',
      { branch: 'feature' },
    );
    await repo.tag('v2-rc', sha);
    for (const revision of ['feature', 'refs/heads/feature', 'v2-rc', sha, sha.slice(0, 12)]) {
      const res = await preview(revision);
      expect(res.status, revision).toBe(200);
      expect(res.body['revision'], revision).toMatchObject({ ref: revision, compared: sha });
      expect(changes(res.body), revision).toEqual(['changed Deployment/web', 'extra ConfigMap/settings']);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('a ref the repository does not have is a 422 naming it; a malformed one a 400; nothing written', async () => {
    const before = await snapshot();
    for (const revision of ['no-such-branch', 'refs/pull/99/head', 'deadbeefdeadbeef']) {
      const res = await preview(revision);
      expect(res.status, revision).toBe(422);
      expect(res.body['error'], revision).toContain(revision);
    }
    for (const revision of ['--upload-pack=x', 'a b', '../x']) {
      const res = await preview(revision);
      expect([400, 422], revision).toContain(res.status);
      expect(res.body['error'], revision).toEqual(expect.any(String));
    }
    expect(await snapshot()).toEqual(before);
  });
});
