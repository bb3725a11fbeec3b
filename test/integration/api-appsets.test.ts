/**
 * AppSets through the API, the CLI and MCP's use-cases, with the real operator (issue 27 item 1): create (201,
 * audited), the generated Apps converge and show in GET /appsets/{name}; a placeholder no generator provides is 422
 * naming the field; a generated App cannot be deleted or frozen through /apps (422 naming its AppSet) but can be
 * synced; PUT replaces the generators (an App leaves); a Viewer reads but cannot write (403); `svc appset
 * create -f <manifest>`, `list`, `get` and `delete` through the real CLI; DELETE removes the AppSet and its Apps.
 * Clusters carry labels (API and CLI); a clusters generator selects registered clusters by them, read over the
 * internal channel, and a label change adds and removes a generated App.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { APPSET_LABEL } from '../../src/core/app-names.ts';
import { loadKubeconfigFile } from '../../src/kube/index.ts';
import { HttpServerChannel } from '../../src/operator/channel/http-channel.ts';
import { type GitServer, runCli, startGitServer, waitUntil } from '../harness/index.ts';
import { auditEntries, mintKey, type OrgApi, signUpMember, startOrgApi, type TestUser } from './api-support.ts';
import { configMapYaml, deleteNamespaces, startTestOperator, type TestOperator, unique } from './operator-support.ts';

type Json = Record<string, unknown>;
type AppSetBody = { apps: { name: string; sync_status: string; health: string }[]; errors: string[] } & Json;

describe('AppSets through the API and the CLI', () => {
  let org: OrgApi;
  let git: GitServer;
  let op: TestOperator;
  let viewer: TestUser;
  let home: string;
  let env: Record<string, string>;
  let repoURL: string;
  const prefix = unique('aset');
  const operatorToken = randomBytes(32).toString('hex');
  const dests = new Set<string>();

  beforeAll(async () => {
    git = await startGitServer();
    org = await startOrgApi('asets', { SVC_OPERATOR_TOKEN: operatorToken });
    // The operator reads registered clusters over the internal channel (in process, as `svc start` wires it).
    op = await startTestOperator(org.orgNs, { serverChannel: org.api.app.serverChannel, appSetResyncMs: 2_000 });
    viewer = await signUpMember(org.api, org.owner, org.orgId, 'viewer', 'viewer');
    await org.api.app.listen({ port: 0, host: '127.0.0.1' });
    const address = org.api.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const key = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'admin' });
    home = mkdtempSync(join(tmpdir(), 'svc-asets-'));
    env = { PATH: process.env['PATH'] ?? '', HOME: home, SVC_SERVER: `http://127.0.0.1:${port}`, SVC_API_KEY: key.key };
    repoURL = (await git.createRepo(unique('web'), { 'm/cm.yaml': configMapYaml('web') })).url;
  });
  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await org?.api.close();
    if (home) rmSync(home, { recursive: true, force: true });
    await deleteNamespaces(org.orgNs, ...dests);
  });

  const call = <T = Json>(method: string, path: string, body?: unknown, who: TestUser = org.owner) =>
    org.api.call<T>(method, `/api/v1${path}`, { cookie: who.cookie, ...(body === undefined ? {} : { body }) });

  const payload = (envs: string[], name = 'web') => {
    for (const e of envs) dests.add(`${prefix}-${e}`);
    return {
      name,
      generators: [{ list: { elements: envs.map((e) => ({ env: e })) } }],
      template: {
        metadata: { name: `${name}-{{ env }}` },
        spec: {
          source: { type: 'Git', git: { repoURL, path: 'm' } },
          destination: { namespace: `${prefix}-{{ env }}` },
          syncPolicy: { automated: true },
        },
      },
    };
  };

  const convergedOn = (name: string, apps: string[]) =>
    waitUntil(
      async () => {
        const res = await call<AppSetBody>('GET', `/appsets/${name}`);
        const seen = res.body.apps.map((a) => `${a.name}:${a.sync_status}:${a.health}`).sort();
        return seen.join() ===
          apps
            .map((a) => `${a}:Synced:Healthy`)
            .sort()
            .join()
          ? res.body
          : undefined;
      },
      { what: `appset ${name} converged on ${apps.join(', ')}`, timeoutMs: 90_000, intervalMs: 300 },
    );

  it('creates, shows, guards the generated Apps, replaces and deletes an AppSet', async () => {
    const bad = await call('POST', '/appsets', {
      ...payload(['x']),
      template: { ...payload(['x']).template, metadata: { name: 'web-{{ region }}' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body['error']).toContain('template.metadata.name');
    expect(bad.body['error']).toContain('region');

    const created = await call<AppSetBody>('POST', '/appsets', payload(['dev', 'prod']));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'web', apps: [], errors: [], sync_policy: {} });
    expect((await call('POST', '/appsets', payload(['dev']))).status).toBe(409);
    const shown = await convergedOn('web', ['web-dev', 'web-prod']);
    expect(shown).toMatchObject({ generated: true, errors: [] });
    expect((await auditEntries(org.api, org.owner, 'appset.create', 'web')).length).toBe(1);

    // Generated Apps: read as Apps, refused for delete and freeze (naming the AppSet), open to operations.
    const app = await call<Json>('GET', `/apps/${prefix}-dev/web-dev`);
    expect(app.status).toBe(200);
    const del = await call('DELETE', `/apps/${prefix}-dev/web-dev`);
    expect(del.status).toBe(422);
    expect(del.body['error']).toContain('AppSet "web"');
    expect((await call('POST', `/apps/${prefix}-dev/web-dev/freeze`, {})).status).toBe(422);
    const sync = await call('POST', `/apps/${prefix}-dev/web-dev/sync`, {});
    expect(sync.status).toBeLessThan(300);
    const resource = await org.kube.get(org.orgNs, 'web-dev');
    expect(resource?.metadata.labels?.[APPSET_LABEL]).toBe('web');

    // A Viewer reads AppSets but cannot write them.
    expect((await call('GET', '/appsets', undefined, viewer)).status).toBe(200);
    expect((await call('POST', '/appsets', payload(['v'], 'viewers'), viewer)).status).toBe(403);
    expect((await call('DELETE', '/appsets/web', undefined, viewer)).status).toBe(403);

    // PUT replaces generators, template and policy: prod leaves.
    const { name: _n, ...spec } = payload(['dev']);
    const replaced = await call('PUT', '/appsets/web', spec);
    expect(replaced.status).toBe(200);
    await convergedOn('web', ['web-dev']);
    expect((await auditEntries(org.api, org.owner, 'appset.update', 'web')).length).toBe(1);
    expect((await call('PUT', '/appsets/nope', spec)).status).toBe(404);

    const gone = await call('DELETE', '/appsets/web');
    expect(gone.body).toEqual({ deleted: true, name: 'web' });
    expect((await call('GET', '/appsets/web')).status).toBe(404);
    await waitUntil(async () => (await org.kube.get(org.orgNs, 'web-dev')) === undefined, {
      what: 'the generated App deleted with its AppSet',
      timeoutMs: 60_000,
    });
    expect((await auditEntries(org.api, org.owner, 'appset.delete', 'web')).length).toBe(1);
  });

  it('svc appset create -f <manifest>, list, get, update -f and delete', async () => {
    const body = payload(['qa'], 'cli');
    const manifest = {
      apiVersion: 'cd.svc.space/v1alpha1',
      kind: 'AppSet',
      metadata: { name: 'cli' },
      spec: { generators: body.generators, template: body.template, syncPolicy: { applicationsSync: 'create-update' } },
    };
    const file = join(home, 'appset.json');
    writeFileSync(file, JSON.stringify(manifest));
    const made = await runCli(['appset', 'create', '-f', file], env);
    expect(made.status, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/Name:\s+cli\n/);
    expect(made.stdout).toMatch(/Apps sync:\s+create-update\n/);
    await convergedOn('cli', ['cli-qa']);

    const list = await runCli(['appset', 'list'], env);
    expect(list.stdout).toMatch(/cli\s+list\s+1\s+0/);
    const got = await runCli(['appset', 'get', 'cli'], env);
    expect(got.stdout).toMatch(/Apps:\s+cli-qa \(Synced, Healthy\)/);
    // update -f takes the same manifest: one more list element, one more App; a file naming another AppSet is refused.
    manifest.spec.generators = payload(['qa', 'uat'], 'cli').generators;
    writeFileSync(file, JSON.stringify(manifest));
    const updated = await runCli(['appset', 'update', 'cli', '-f', file], env);
    expect(updated.status, updated.stderr).toBe(0);
    await convergedOn('cli', ['cli-qa', 'cli-uat']);
    const renamed = await runCli(['appset', 'update', 'other', '-f', file], env);
    expect(renamed.status).not.toBe(0);
    expect(renamed.stderr).toContain('never renames');
    expect((await auditEntries(org.api, org.owner, 'appset.update', 'cli')).length).toBe(1);
    const missing = await runCli(['appset', 'get', 'nope'], env);
    expect(missing.status).not.toBe(0);
    const deleted = await runCli(['appset', 'delete', 'cli'], env);
    expect(deleted.status).toBe(0);
    expect((await runCli(['appset', 'list'], env)).stdout).toContain('No AppSets.');
  });

  it('selects registered clusters by their labels, over the internal channel, and follows label changes', async () => {
    // Three registrations of the harness's plane (the test of three real planes is separate work): what matters here
    // is which clusters the generator selects; the Apps deploy for real through the registered credentials.
    for (const c of ['east', 'west', 'lab']) dests.add(`${prefix}-${c}`);
    const server = loadKubeconfigFile(inject('mgmtKubeconfig')).server.origin;
    const kubeconfig = readFileSync(inject('mgmtKubeconfig'), 'utf8');
    for (const [name, env] of [
      ['east', 'prod'],
      ['west', 'prod'],
      ['lab', 'staging'],
    ] as const) {
      const labels = { env, 'example.com/team': 'web' };
      const res = await call('POST', '/clusters', { name, server_url: server, kubeconfig, labels });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ cluster: { labels: { env } } });
    }
    // A key breaking label syntax is a rule the OpenAPI 3.0 document cannot state: 422 naming the key; a bad value
    // is the schema's 400.
    const badKey = await call('POST', '/clusters', { name: 'odd', server_url: server, labels: { 'a b': 'x' } });
    expect(badKey.status).toBe(422);
    expect(badKey.body['error']).toContain('"a b" is not a Kubernetes label key');
    const badValue = await call('POST', '/clusters', { name: 'odd', server_url: server, labels: { a: 'x y' } });
    expect(badValue.status).toBe(400);
    const badUpdate = await call('PATCH', '/clusters/east', { labels: { '-x': 'y' } });
    expect(badUpdate.status).toBe(422);
    expect(badUpdate.body['error']).toContain('"-x" is not a Kubernetes label key');

    // The HTTP face of the channel answers names and labels, no credentials.
    const address = org.api.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const http = new HttpServerChannel(`http://127.0.0.1:${port}`, { token: operatorToken });
    expect(await http.clusters(org.orgNs)).toEqual([
      { name: 'east', labels: { env: 'prod', 'example.com/team': 'web' } },
      { name: 'lab', labels: { env: 'staging', 'example.com/team': 'web' } },
      { name: 'west', labels: { env: 'prod', 'example.com/team': 'web' } },
    ]);

    const created = await call('POST', '/appsets', {
      name: 'fleet',
      generators: [{ clusters: { selector: { matchLabels: { env: 'prod' } } } }],
      template: {
        metadata: { name: 'guestbook-{{ name }}', labels: { env: '{{ metadata.labels.env }}' } },
        spec: {
          source: { type: 'Git', git: { repoURL, path: 'm' } },
          destination: { cluster: '{{ name }}', namespace: `${prefix}-{{ name }}` },
        },
      },
    });
    expect(created.status).toBe(201);
    const appsAre = (names: string[]) =>
      waitUntil(
        async () => {
          const res = await call<AppSetBody>('GET', '/appsets/fleet');
          return res.body.apps.map((a) => a.name).join() === names.join() ? res.body : undefined;
        },
        { what: `fleet generates ${names.join(', ')}`, timeoutMs: 60_000, intervalMs: 300 },
      );
    await appsAre(['guestbook-east', 'guestbook-west']);
    const east = await org.kube.get(org.orgNs, 'guestbook-east');
    expect(east?.spec.destination).toEqual({ cluster: 'east', namespace: `${prefix}-east` });
    expect(east?.metadata.labels).toMatchObject({ env: 'prod', [APPSET_LABEL]: 'fleet' });

    // A label change moves a cluster in and another out (sync policy).
    expect((await call('PATCH', '/clusters/lab', { labels: { env: 'prod' } })).status).toBe(200);
    const cli = await runCli(['cluster', 'update', 'east', '--labels', 'env=staging'], env);
    expect(cli.status, cli.stderr).toBe(0);
    const shown = await runCli(['cluster', 'get', 'east', '--shallow'], env);
    expect(shown.stdout).toMatch(/Labels:\s+env=staging\n/);
    await appsAre(['guestbook-lab', 'guestbook-west']);
    expect((await call('DELETE', '/appsets/fleet')).status).toBe(200);
  });
});
