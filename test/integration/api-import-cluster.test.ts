/**
 * POST /api/v1/import with `from` (issue 28 item 1, docs/migrate.md "From a cluster"): a second real control plane
 * with Argo CD's CRDs (Application, AppProject) and Flux's kustomize and helm controller CRDs, registered with svc as a
 * cluster, holding Argo CD's example Applications (test/fixtures/import/argocd/apps.yaml), a repository Secret as
 * Argo CD's declarative setup writes it, and a Flux Kustomization and HelmRelease. The dry-run reads them through
 * discovery (kinds whose CRD is missing are named, not an error), maps them as the documents path does (Argo CD's
 * in-cluster address is the cluster read), and never answers the Secret's password; a namespace allowlist limits
 * what is read; apply creates the Apps, which the App list then shows. The management cluster is read in the org
 * namespace only. Bad shapes are 400, an unknown cluster 404; the CLI reads a cluster with --from-cluster.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  binary,
  type ControlPlane,
  type GitServer,
  kubectl,
  registerSecret,
  repoRoot,
  runCli,
  startControlPlane,
  startGitServer,
  waitUntil,
} from '../harness/index.ts';
import { mintKey, type OrgApi, startOrgApi } from './api-support.ts';
import { connectMcp } from './mcp-support.ts';

type Json = Record<string, unknown>;
const PASSWORD = 'import-cluster-repo-password-3b8e1d0c6f';
const FIXTURES = join(repoRoot, 'test/fixtures/import');
const EXAMPLES = ['example.guestbook', 'example.helm-guestbook', 'example.kustomize-guestbook', 'example.plugin-nix'];

const EXAMPLE_URL = 'https://github.com/argoproj/argocd-example-apps';
const repositorySecret = (url: string) => `apiVersion: v1
kind: Secret
metadata:
  name: example-apps
  namespace: argocd
  labels:
    argocd.argoproj.io/secret-type: repository
stringData:
  type: git
  url: ${url}
  username: git
  password: ${PASSWORD}
`;

const fluxObjects = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: { name: podinfo, namespace: flux-system }
spec:
  interval: 10m
  path: ./kustomize
  prune: true
  sourceRef: { kind: GitRepository, name: podinfo }
  targetNamespace: podinfo
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: { name: redis, namespace: flux-system }
spec:
  interval: 10m
  targetNamespace: redis
  chart:
    spec:
      chart: redis
      version: 20.x
      sourceRef: { kind: HelmRepository, name: bitnami }
`;

const names = (body: Json) =>
  (body['entries'] as Json[]).map((e) => `${(e['object'] as Json)['kind']}/${(e['object'] as Json)['name']}`);

describe('import from a cluster', () => {
  let org: OrgApi;
  let plane: ControlPlane;
  let git: GitServer;
  let repoURL: string;
  const logs: string[] = [];
  const call = (body: unknown, auth: { cookie?: string; key?: string } = { cookie: org.owner.cookie }) =>
    org.api.call<Json>('POST', '/api/v1/import', { ...auth, body });

  beforeAll(async () => {
    registerSecret('import-cluster repository password', PASSWORD);
    [org, plane, git] = await Promise.all([
      startOrgApi('importc', {}, { logLines: logs }),
      startControlPlane({ name: 'argo', kwok: false, controllers: false, crds: false }),
      startGitServer(),
    ]);
    // The example repository's address, on the harness git server (svc resolves a repository's host when it is made).
    repoURL = (await git.createRepo('argocd-example-apps', { 'README.md': 'examples\n' }, { branch: 'master' })).url;
    const kc = plane.kubeconfigPath;
    const crds = [
      binary('argocd-crds', 'application-crd.yaml'),
      binary('argocd-crds', 'appproject-crd.yaml'),
      binary('flux-crds', 'kustomize-controller-crds.yaml'),
      binary('flux-crds', 'helm-controller-crds.yaml'),
    ];
    await kubectl(kc, ['apply', '--server-side', ...crds.flatMap((f) => ['-f', f])]);
    await waitUntil(
      () => kubectl(kc, ['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']).then(() => true),
      { what: 'CRDs Established', timeoutMs: 90_000 },
    );
    for (const ns of ['argocd', 'flux-system']) await kubectl(kc, ['create', 'namespace', ns]);
    const apps = readFileSync(join(FIXTURES, 'argocd/apps.yaml'), 'utf8')
      .split(/^---$/m)
      .filter((d) => EXAMPLES.some((e) => d.includes(`name: "${e}"`)))
      .map((d) => d.replaceAll(EXAMPLE_URL, repoURL));
    expect(apps).toHaveLength(EXAMPLES.length);
    // Applied with kubectl apply (client-side): the last-applied annotation then holds the Secret's data in clear.
    await kubectl(kc, ['apply', '-f', '-'], {
      input: [...apps, repositorySecret(repoURL), fluxObjects].join('\n---\n'),
    });
    const registered = await Promise.all([
      org.api.call('POST', '/api/v1/clusters', {
        cookie: org.owner.cookie,
        body: { name: 'argo', server_url: plane.serverURL, kubeconfig: plane.tokenKubeconfigYaml },
      }),
      org.api.call('POST', '/api/v1/clusters', {
        cookie: org.owner.cookie,
        body: {
          name: 'argo-flux',
          server_url: plane.serverURL,
          kubeconfig: plane.tokenKubeconfigYaml,
          namespaces: ['flux-system'],
        },
      }),
    ]);
    expect(registered.map((r) => r.status)).toEqual([201, 201]);
  }, 180_000);
  afterAll(async () => {
    await org?.api.close();
    await plane?.stop();
    await git?.stop();
  });

  it('dry-runs what the cluster holds: each mapping, kinds not served named, no password, nothing created', async () => {
    const res = await call({ from: { cluster: 'argo' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body['source']).toEqual({
      cluster: 'argo',
      namespaces: [],
      not_served: [
        'ApplicationSet (argoproj.io)',
        'GitRepository (source.toolkit.fluxcd.io)',
        'OCIRepository (source.toolkit.fluxcd.io)',
        'HelmRepository (source.toolkit.fluxcd.io)',
        'ImageRepository (image.toolkit.fluxcd.io)',
        'ImagePolicy (image.toolkit.fluxcd.io)',
      ],
      notes: [],
    });
    expect(names(res.body).sort()).toEqual(
      [
        ...EXAMPLES.map((e) => `Application/${e}`),
        'Kustomization/podinfo',
        'HelmRelease/redis',
        'Secret/example-apps',
      ].sort(),
    );
    const entries = res.body['entries'] as Json[];
    const guestbook = entries.find((e) => (e['object'] as Json)['name'] === 'example.guestbook');
    expect(guestbook).toMatchObject({
      result: 'mapped',
      becomes: { kind: 'App', name: 'example-guestbook' },
      app: {
        cluster: 'argo',
        namespace: 'guestbook',
        source: { type: 'Git', git: { repoURL, path: 'guestbook' } },
      },
    });
    // What the server set (uid, managedFields, the last-applied annotation) is not the author's: no field names it.
    const fields = entries.flatMap((e) => (e['fields'] as Json[]).map((f) => String(f['field'])));
    expect(fields.filter((f) => /uid|managedFields|last-applied|resourceVersion|status/.test(f))).toEqual([]);
    expect(entries.find((e) => (e['object'] as Json)['name'] === 'example.plugin-nix')).toMatchObject({
      result: 'unmapped',
      reason: expect.stringMatching(/plugin/),
    });
    expect(entries.find((e) => (e['object'] as Json)['kind'] === 'Secret')).toMatchObject({
      repository: { name: 'example-apps', has_password: true, username: 'git' },
    });
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    const apps = await org.api.call<Json>('GET', '/api/v1/apps', { cookie: org.owner.cookie });
    expect(apps.body['apps']).toEqual([]);
  });

  it("reads within the cluster's namespace allowlist", async () => {
    const res = await call({ from: { cluster: 'argo-flux' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body['source']).toMatchObject({ cluster: 'argo-flux', namespaces: ['flux-system'] });
    expect(names(res.body).sort()).toEqual(['HelmRelease/redis', 'Kustomization/podinfo']);
  });

  it('answers 400 for both documents and from or neither, 404 for a cluster not registered', async () => {
    for (const body of [{ documents: 'a: 1', from: { cluster: 'argo' } }, { apply: true }, { from: {} }]) {
      const res = await call(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body['error']).toBe('string');
    }
    const missing = await call({ from: { cluster: 'nowhere' } });
    expect(missing.status).toBe(404);
    expect(typeof missing.body['error']).toBe('string');
  });

  it('reads the management cluster in the org namespace only', async () => {
    const kc = inject('mgmtKubeconfig');
    const other = `argocd-${org.suffix}`;
    await kubectl(kc, ['create', 'namespace', other]);
    const application = (name: string, namespace: string) => `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: { name: ${name}, namespace: ${namespace} }
spec:
  project: default
  destination: { server: https://kubernetes.default.svc, namespace: ${name} }
  source: { repoURL: https://github.com/argoproj/argocd-example-apps, path: guestbook, targetRevision: master }
`;
    try {
      await kubectl(kc, ['apply', '-f', '-'], {
        input: `${application('mine', org.orgNs)}---\n${application('theirs', other)}`,
      });
      const res = await call({ from: { cluster: '' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body['source']).toMatchObject({ cluster: '', namespaces: [org.orgNs] });
      expect(names(res.body)).toEqual(['Application/mine']);
      expect((res.body['entries'] as Json[])[0]).toMatchObject({ app: { name: 'mine', namespace: 'mine' } });
      expect((res.body['entries'] as Json[])[0]?.['app']).not.toHaveProperty('cluster');
    } finally {
      await kubectl(kc, ['delete', 'namespace', other, '--wait=false']);
      await kubectl(kc, ['-n', org.orgNs, 'delete', 'applications.argoproj.io', 'mine', '--ignore-not-found']);
    }
  });

  it('svc import --from-cluster / --from-management, and the MCP tool with a cluster', async () => {
    const { key } = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'read' });
    const home = mkdtempSync(join(tmpdir(), 'svc-import-cluster-'));
    try {
      await org.api.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(org.api.app.server.address() as AddressInfo).port}`;
      const env = { PATH: process.env['PATH'] ?? '', HOME: home, SVC_SERVER: base, SVC_API_KEY: key };
      const run = await runCli(['import', '--from-cluster', 'argo-flux'], env);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Kustomization\/flux-system\/podinfo +\w+/m);
      expect(run.stdout).toMatch(/^read from cluster argo-flux, namespaces flux-system$/m);
      expect(run.stdout).toMatch(/^not served there: ApplicationSet \(argoproj\.io\), GitRepository/m);
      const management = await runCli(['import', '--from-management', '-o', 'json'], env);
      expect(management.status, management.stderr).toBe(0);
      expect(JSON.parse(management.stdout)).toMatchObject({ source: { cluster: '', namespaces: [org.orgNs] } });
      const session = await connectMcp(base, key);
      const mcp = await session.call('import_dry_run', { cluster: 'argo-flux' });
      const neither = await session.call('import_dry_run', {});
      await session.close();
      expect(mcp.structuredContent?.source).toMatchObject({ cluster: 'argo-flux', namespaces: ['flux-system'] });
      expect(names(mcp.structuredContent as unknown as Json).sort()).toEqual([
        'HelmRelease/redis',
        'Kustomization/podinfo',
      ]);
      expect(neither.isError).toBe(true);
      const both = await runCli(['import', '--from-cluster', 'argo', '-f', FIXTURES], env);
      expect(both.status).toBe(2);
      expect(both.stderr).toMatch(/one of -f, --from-cluster/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('applies: the repository and the Apps are created, and the App list shows them', async () => {
    const res = await call({ from: { cluster: 'argo' }, apply: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body['applied']).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    const created = (res.body['entries'] as Json[])
      .filter((e) => (e['applied'] as Json | undefined)?.['status'] === 'created')
      .map((e) => (e['becomes'] as Json)['name']);
    expect(created.sort(), JSON.stringify(res.body['entries'])).toEqual([
      'example-apps',
      'example-guestbook',
      'example-helm-guestbook',
      'example-kustomize-guestbook',
    ]);
    // Flux's source-controller CRDs are not installed on the plane: its sources cannot be read, which the entries say.
    for (const name of ['podinfo', 'redis']) {
      expect((res.body['entries'] as Json[]).find((e) => (e['object'] as Json)['name'] === name)).toMatchObject({
        result: 'unmapped',
        reason: expect.stringMatching(/not among the imported/),
      });
    }
    const apps = await org.api.call<{ apps: Array<{ name: string; cluster: string }> }>('GET', '/api/v1/apps', {
      cookie: org.owner.cookie,
    });
    expect(apps.body.apps.map((a) => [a.name, a.cluster]).sort()).toEqual([
      ['example-guestbook', 'argo'],
      ['example-helm-guestbook', 'argo'],
      ['example-kustomize-guestbook', 'argo'],
    ]);
    const repos = await org.api.call<Json>('GET', '/api/v1/repositories', { cookie: org.owner.cookie });
    expect(repos.body['repositories']).toMatchObject([{ name: 'example-apps', has_password: true }]);
    expect(logs.join('\n')).not.toContain(PASSWORD);
  });
});
