/**
 * Cluster registration against two real apiservers (contract §2.6, §3, §4.2 create rule, §4.3, §6.4, §7): the
 * harness's management plane (Apps) and a second plane with its own etcd standing in for a registered cluster. It
 * gets a Node and a Pod written through its API so the probe has something to count (there is no kubelet: the
 * objects are what a kubelet and scheduler would have left). The remote's apiserver is stopped mid-test to prove
 * the disconnected paths. Every API answer and log line is scanned for the remote's credentials at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InClusterOptions } from '../../src/kube/index.ts';
import { HttpServerChannel } from '../../src/operator/channel/http-channel.ts';
import { openStore } from '../../src/store/database.ts';
import {
  type ControlPlane,
  kubeClient,
  serviceAccountKubeconfig,
  serviceAccountToken,
  startControlPlane,
} from '../harness/index.ts';
import { auditEntries, mintKey, type OrgApi, type Reply, signUpMember, startOrgApi } from './api-support.ts';
import { deleteNamespaces } from './operator-support.ts';

const operatorToken = randomBytes(32).toString('hex');
/** The server's "own ServiceAccount": files and environment filled in once the remote plane runs. */
const podDir = mkdtempSync(join(tmpdir(), 'svc-pod-'));
const inClusterOptions: InClusterOptions = {
  env: {},
  tokenPath: join(podDir, 'token'),
  caPath: join(podDir, 'ca.crt'),
};

type ClusterBody = { cluster: Record<string, unknown> };

describe('clusters API', () => {
  let org: OrgApi;
  let remote: ControlPlane;
  let limitedKubeconfig = '';
  let podToken = '';
  const logLines: string[] = [];
  const answers: string[] = [];
  const dest = `dest-${randomBytes(3).toString('hex')}`;

  /** Calls the API as the org's owner (unless `as` says otherwise) and keeps the answer for the secret scan. */
  async function call<T = Record<string, unknown>>(
    method: string,
    url: string,
    options: { body?: unknown; cookie?: string; key?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply<T>> {
    const cred = options.key ? { key: options.key } : { cookie: options.cookie ?? org.owner.cookie };
    const res = await org.api.call<T>(method, url, { ...cred, ...options });
    answers.push(JSON.stringify(res.body));
    return res;
  }

  beforeAll(async () => {
    [org, remote] = await Promise.all([
      startOrgApi('clusters', { SVC_OPERATOR_TOKEN: operatorToken }, { logLines, inCluster: inClusterOptions }),
      startControlPlane({ name: 'remote', kwok: false, controllers: false, crds: false }),
    ]);
    // What a kubelet and the scheduler would leave behind: one node with capacity, one pod bound to it.
    const admin = kubeClient(remote.admin);
    try {
      await admin.request('/api/v1/nodes', {
        method: 'POST',
        body: {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: 'node-a', labels: { 'topology.kubernetes.io/region': 'eu-test-1' } },
          spec: { providerID: 'kind://docker/remote/node-a' },
        },
      });
      await admin.request('/api/v1/nodes/node-a/status', {
        method: 'PATCH',
        contentType: 'application/merge-patch+json',
        body: {
          status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' }, capacity: { cpu: '4', memory: '8Gi' } },
        },
      });
      await admin.request('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'web' } } });
      await admin.request('/api/v1/namespaces/web/serviceaccounts', {
        method: 'POST',
        body: { metadata: { name: 'default' } },
      });
      await admin.request('/api/v1/namespaces/web/pods', {
        method: 'POST',
        body: {
          metadata: { name: 'busy' },
          spec: {
            nodeName: 'node-a',
            automountServiceAccountToken: false,
            containers: [
              { name: 'c', image: 'example.test/busy:1', resources: { requests: { cpu: '1', memory: '2Gi' } } },
            ],
          },
        },
      });
    } finally {
      await admin.dropConnections();
    }
    // A ServiceAccount with no rights at all: it can authenticate (and read /version) but list nothing.
    limitedKubeconfig = await serviceAccountKubeconfig(remote, { name: 'nobody' });
    // As if the server ran in a Pod of the remote cluster, with its own ServiceAccount.
    podToken = await serviceAccountToken(remote.kubeconfigPath, {
      name: 'svc-server',
      namespace: 'svc-system',
      clusterRole: 'cluster-admin',
    });
    writeFileSync(inClusterOptions.tokenPath ?? '', podToken);
    writeFileSync(inClusterOptions.caPath ?? '', remote.caPEM);
    const port = new URL(remote.serverURL).port;
    Object.assign(inClusterOptions.env ?? {}, { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port });
  });

  afterAll(async () => {
    await org?.api.close();
    await remote?.stop();
    await deleteNamespaces(`${org?.orgNs}`, dest);
    rmSync(podDir, { recursive: true, force: true });
  });

  const register = (body: Record<string, unknown>) => call<ClusterBody>('POST', '/api/v1/clusters', { body });

  it('registers a cluster as unknown without probing it, sealing the kubeconfig at rest', async () => {
    const res = await register({
      name: 'east',
      server_url: remote.serverURL,
      kubeconfig: remote.kubeconfigYaml,
      namespaces: ['web', dest],
    });
    expect(res.status).toBe(201);
    expect(res.body.cluster).toMatchObject({
      name: 'east',
      server_url: remote.serverURL,
      namespace: `web,${dest}`,
      status: 'unknown',
      credentials: 'kubeconfig',
      version: '',
      last_seen: null,
    });
    expect(res.body.cluster['id']).toMatch(/^[0-9a-f-]{36}$/);
    const store = openStore(org.api.database);
    try {
      const row = await store.db.selectFrom('cluster').selectAll().where('name', '=', 'east').executeTakeFirstOrThrow();
      expect(row.kubeconfig).toMatch(/^enc:v1:[A-Za-z0-9_-]+$/);
      expect(JSON.stringify(row)).not.toContain(remote.token);
      expect(JSON.stringify(row)).not.toContain('client-key-data');
    } finally {
      await store.close();
    }
    const shallow = await call<{ clusters: Record<string, unknown>[] }>('GET', '/api/v1/clusters?shallow=1');
    expect(shallow.body.clusters).toEqual([
      expect.objectContaining({ name: 'east', status: 'unknown', node_count: 0 }),
    ]);
  });

  it('refuses bad registrations: duplicate 409, http 400, exec/auth-provider/unparseable kubeconfigs and refused addresses 422, over 1 MiB 413', async () => {
    const ok = { name: 'west', server_url: remote.serverURL, kubeconfig: remote.tokenKubeconfigYaml };
    expect((await register({ ...ok, name: 'east' })).status).toBe(409);
    const http = await register({ ...ok, server_url: remote.serverURL.replace('https:', 'http:') });
    expect(http).toMatchObject({ status: 400, body: { error: expect.stringContaining('https') } });
    // An empty body is no body (the in-cluster test: a result); any other body must be a JSON document: whitespace
    // alone is not one, a tab or a vertical tab (both found by the fuzzer).
    expect((await call('POST', '/api/v1/clusters/test', { body: '' })).status).toBe(200);
    for (const body of ['\t', ' \n', '\x0b']) {
      const blank = await call('POST', '/api/v1/clusters/test', { body });
      expect(blank, JSON.stringify(body)).toMatchObject({ status: 400, body: { error: expect.any(String) } });
    }
    const withUser = (user: string) => remote.tokenKubeconfigYaml.replace(/token: .*/, user.replace(/\n/g, '\n      '));
    const exec = withUser('exec:\n  apiVersion: client.authentication.k8s.io/v1\n  command: /bin/sh');
    const execRes = await register({ ...ok, kubeconfig: exec });
    // The document takes any kubeconfig text; what it holds is checked after (422).
    expect(execRes).toMatchObject({ status: 422, body: { error: expect.stringContaining('exec') } });
    const provider = withUser('auth-provider:\n  name: gcp\n  config:\n    access-token: not-for-your-eyes');
    const providerRes = await register({ ...ok, kubeconfig: provider });
    expect(providerRes).toMatchObject({ status: 422, body: { error: expect.stringContaining('auth-provider') } });
    expect(JSON.stringify(providerRes.body)).not.toContain('not-for-your-eyes');
    expect((await register({ ...ok, kubeconfig: 'clusters: [' })).status).toBe(422);
    expect((await register({ ...ok, name: 'Not_A_Label' })).status).toBe(400);
    expect((await register({ ...ok, name: 'x'.repeat(64) })).status).toBe(400);
    expect((await register({ ...ok, namespaces: ['Bad'] })).status).toBe(400);
    expect((await register({ ...ok, server_url: 'https://169.254.169.254' })).status).toBe(422);
    const huge = await register({ ...ok, kubeconfig: `# ${'x'.repeat(1024 * 1024)}\n${ok.kubeconfig}` });
    expect(huge).toMatchObject({ status: 413, body: { error: expect.any(String) } });
    const listed = await call<{ clusters: { name: string }[] }>('GET', '/api/v1/clusters?shallow=1');
    expect(listed.body.clusters.map((c) => c.name)).toEqual(['east']);
  });

  it('probes on GET /clusters: connected with version, nodes, region, provider and use of allocatable', async () => {
    const res = await call<{ clusters: Record<string, unknown>[] }>('GET', '/api/v1/clusters');
    expect(res.status).toBe(200);
    expect(res.body.clusters[0]).toMatchObject({
      name: 'east',
      status: 'connected',
      status_message: '',
      version: expect.stringMatching(/^v1\.35\./),
      node_count: 1,
      provider: 'kind',
      region: 'eu-test-1',
      cpu_usage: 25,
      memory_usage: 25,
      last_seen: expect.any(String),
    });
    const one = await call<ClusterBody>('GET', '/api/v1/clusters/east?shallow=1');
    expect(one.body.cluster).toMatchObject({ status: 'connected', node_count: 1 });
  });

  it('tests settings without storing them: ok with version and namespaces, without namespaces, or ok:false', async () => {
    const full = await call('POST', '/api/v1/clusters/test', { body: { kubeconfig: remote.kubeconfigYaml } });
    expect(full).toMatchObject({ status: 200, body: { ok: true, version: expect.stringMatching(/^v1\.35\./) } });
    expect(full.body['namespaces']).toEqual(expect.arrayContaining(['web', 'default', 'kube-system']));
    const limited = await call('POST', '/api/v1/clusters/test', {
      body: { server_url: remote.serverURL, kubeconfig: limitedKubeconfig },
    });
    expect(limited).toMatchObject({ status: 200, body: { ok: true, version: expect.stringMatching(/^v1\./) } });
    expect(limited.body).not.toHaveProperty('namespaces');
    const closed = await call('POST', '/api/v1/clusters/test', {
      body: { server_url: 'https://127.0.0.1:1', kubeconfig: remote.kubeconfigYaml },
    });
    expect(closed).toMatchObject({ status: 200, body: { ok: false, error: expect.stringMatching(/ECONNREFUSED/) } });
    const exec = await call('POST', '/api/v1/clusters/test', {
      body: { kubeconfig: remote.kubeconfigYaml.replace(/client-key-data: .*/, 'exec: {command: sh}') },
    });
    expect(exec).toMatchObject({ status: 200, body: { ok: false, error: expect.any(String) } });
    // A URL the document refuses is a 400 here too; every request it accepts is a result.
    const http = await call('POST', '/api/v1/clusters/test', { body: { server_url: 'http://127.0.0.1:1' } });
    expect(http).toMatchObject({ status: 400, body: { error: expect.stringContaining('https') } });
    // An empty body is no body (the in-cluster test: a result); any other body must be a JSON document: whitespace
    // alone is not one, a tab or a vertical tab (both found by the fuzzer).
    expect((await call('POST', '/api/v1/clusters/test', { body: '' })).status).toBe(200);
    for (const body of ['\t', ' \n', '\x0b']) {
      const blank = await call('POST', '/api/v1/clusters/test', { body });
      expect(blank, JSON.stringify(body)).toMatchObject({ status: 400, body: { error: expect.any(String) } });
    }
    const names = (await call<{ clusters: { name: string }[] }>('GET', '/api/v1/clusters?shallow=1')).body.clusters;
    expect(names.map((c) => c.name)).toEqual(['east']);
    expect((await auditEntries(org.api, org.owner, 'cluster.test', remote.serverURL)).length).toBeGreaterThan(0);
  });

  it('lists namespaces live, within the allowlist', async () => {
    const res = await call('GET', '/api/v1/clusters/east/namespaces');
    expect(res).toMatchObject({ status: 200, body: { namespaces: ['web'] } });
    expect((await call('GET', '/api/v1/clusters/nowhere/namespaces')).status).toBe(404);
  });

  it('reads a stopped remote as disconnected, and connected again once it is back', async () => {
    await remote.down();
    try {
      const down = await call<{ clusters: Record<string, unknown>[] }>('GET', '/api/v1/clusters');
      expect(down.body.clusters[0]).toMatchObject({
        status: 'disconnected',
        status_message: expect.stringMatching(/ECONNREFUSED/),
        node_count: 1,
      });
      expect((await call('GET', '/api/v1/clusters?shallow=1')).body).toMatchObject({
        clusters: [expect.objectContaining({ status: 'disconnected' })],
      });
      expect((await call('GET', '/api/v1/clusters/east/namespaces')).status).toBe(503);
    } finally {
      await remote.up();
    }
    const back = await call<{ clusters: Record<string, unknown>[] }>('GET', '/api/v1/clusters');
    expect(back.body.clusters[0]).toMatchObject({ status: 'connected' });
  });

  it('checks Apps against the org’s clusters and allowlists at create time', async () => {
    const app = (name: string, cluster: string, namespace: string) => ({
      name,
      namespace,
      cluster,
      source: { type: 'Git', git: { repoURL: 'https://git.example.test/app.git', path: 'm' } },
    });
    const outside = await call('POST', '/api/v1/apps', { body: app('outside', 'east', 'other') });
    expect(outside).toMatchObject({ status: 403, body: { error: expect.stringContaining('allowlist') } });
    const unknown = await call('POST', '/api/v1/apps', { body: app('lost', 'nowhere', dest) });
    expect(unknown).toMatchObject({ status: 422, body: { error: expect.stringContaining('not registered') } });
    expect((await call('POST', '/api/v1/apps', { body: app('inside', 'east', dest) })).status).toBe(201);
  });

  it('updates credentials and allowlist, refusing to leave an App outside; removes only clusters without Apps', async () => {
    const narrow = await call('PATCH', '/api/v1/clusters/east', { body: { namespaces: ['web'] } });
    expect(narrow).toMatchObject({ status: 409, body: { error: expect.stringContaining(`${dest}/inside`) } });
    const rotated = await call<ClusterBody>('PATCH', '/api/v1/clusters/east', {
      body: { kubeconfig: remote.tokenKubeconfigYaml },
    });
    expect(rotated).toMatchObject({ status: 200, body: { cluster: { name: 'east', status: 'unknown' } } });
    const probed = await call<ClusterBody>('GET', '/api/v1/clusters/east');
    expect(probed.body.cluster).toMatchObject({ status: 'connected' });
    expect((await call('PATCH', '/api/v1/clusters/east', { body: {} })).status).toBe(400);
    expect((await call('PATCH', '/api/v1/clusters/east', { body: { name: 'renamed' } })).status).toBe(400);
    expect((await call('PATCH', '/api/v1/clusters/nowhere', { body: { namespaces: [] } })).status).toBe(404);

    const blocked = await call('DELETE', '/api/v1/clusters/east');
    expect(blocked).toMatchObject({ status: 409, body: { error: expect.stringContaining(`${dest}/inside`) } });
    expect((await call('DELETE', `/api/v1/apps/${dest}/inside`)).status).toBe(200);
    expect(await call('DELETE', '/api/v1/clusters/east')).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await call('DELETE', '/api/v1/clusters/east')).status).toBe(404);
    const audit = async (action: string) => auditEntries(org.api, org.owner, action, 'east');
    expect(await audit('cluster.register')).toHaveLength(1);
    expect((await audit('cluster.update'))[0]).toMatchObject({ details: { changed: ['kubeconfig'] } });
    expect(await audit('cluster.remove')).toHaveLength(1);
  });

  it('lets Viewers read clusters but not register them; API keys are bounded by their ceiling', async () => {
    const res = await register({ name: 'north', server_url: remote.serverURL, kubeconfig: remote.kubeconfigYaml });
    expect(res.status).toBe(201);
    const viewer = await signUpMember(org.api, org.owner, org.orgId, 'viewer', 'viewer');
    expect((await call('GET', '/api/v1/clusters?shallow=1', { cookie: viewer.cookie })).status).toBe(200);
    const denied = await call('POST', '/api/v1/clusters', {
      cookie: viewer.cookie,
      body: { name: 'south', server_url: remote.serverURL },
    });
    expect(denied.status).toBe(403);
    expect((await call('DELETE', '/api/v1/clusters/north', { cookie: viewer.cookie })).status).toBe(403);
    const readKey = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'read' });
    expect((await call('GET', '/api/v1/clusters?shallow=1', { key: readKey.key })).status).toBe(200);
    expect((await call('PATCH', '/api/v1/clusters/north', { key: readKey.key, body: { namespaces: [] } })).status).toBe(
      403,
    );
  });

  it('serves the operator the kubeconfig on the internal route only, with an ETag', async () => {
    const path = `/internal/clusters/north/kubeconfig?org_namespace=${org.orgNs}`;
    const operator = { authorization: `Bearer ${operatorToken}` };
    const res = await org.api.call<Record<string, unknown>>('GET', path, { headers: operator });
    expect(res).toMatchObject({
      status: 200,
      body: {
        name: 'north',
        org_namespace: org.orgNs,
        server_url: remote.serverURL,
        namespaces: [],
        credentials: 'kubeconfig',
        kubeconfig: remote.kubeconfigYaml,
      },
    });
    const etag = String(res.headers['etag']);
    expect(etag).toBe(`"${res.body['revision']}"`);
    const unchanged = await org.api.call('GET', `/api/v1${path}`, { headers: { ...operator, 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
    expect((await org.api.call('GET', path.replace('north', 'nowhere'), { headers: operator })).status).toBe(404);
    const other = path.replace(org.orgNs, 'org-someone-else');
    expect((await org.api.call('GET', other, { headers: operator })).status).toBe(404);
    const key = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'admin' });
    for (const creds of [{ cookie: org.owner.cookie }, { key: key.key }]) {
      const refused = await org.api.call('GET', path, creds);
      answers.push(JSON.stringify(refused.body));
      expect(refused).toMatchObject({ status: 403, body: { error: expect.stringContaining('operator') } });
    }
    expect((await org.api.call('GET', path)).status).toBe(401);

    // What `svc operator` run alone does: the HTTP channel, with the shared secret.
    await org.api.app.listen({ host: '127.0.0.1', port: 0 });
    const channel = new HttpServerChannel(`http://127.0.0.1:${(org.api.app.server.address() as AddressInfo).port}`, {
      token: operatorToken,
    });
    const first = await channel.clusterAccess(org.orgNs, 'north');
    expect(first).toMatchObject({ changed: true, cluster: { name: 'north', kubeconfig: remote.kubeconfigYaml } });
    const revision = first.changed ? first.cluster.revision : '';
    expect(await channel.clusterAccess(org.orgNs, 'north', revision)).toEqual({ changed: false });
    await expect(channel.clusterAccess(org.orgNs, 'nowhere')).rejects.toMatchObject({ retry: 'wait' });
  });

  it('reaches a cluster registered without a kubeconfig with the server’s own in-cluster credentials', async () => {
    const res = await register({ name: 'home', server_url: remote.serverURL });
    expect(res.body.cluster).toMatchObject({ status: 'unknown', credentials: 'in-cluster' });
    const probed = await call<ClusterBody>('GET', '/api/v1/clusters/home');
    expect(probed.body.cluster).toMatchObject({ status: 'connected', node_count: 1 });
    const tested = await call('POST', '/api/v1/clusters/test', { body: { server_url: remote.serverURL } });
    expect(tested.body).toMatchObject({ ok: true, namespaces: expect.arrayContaining(['svc-system']) });
    expect((await call('DELETE', '/api/v1/clusters/home')).status).toBe(200);
  });

  it('never shows a registered credential in an API answer or a log line', async () => {
    const keyBody = (pem: string) => pem.split('\n').slice(1, -2).join('');
    const secrets = [
      remote.token,
      Buffer.from(remote.admin.clientKeyPEM ?? '').toString('base64'),
      keyBody(remote.admin.clientKeyPEM ?? '').slice(0, 40),
      /token: (\S+)/.exec(limitedKubeconfig)?.[1] ?? 'unset',
      podToken,
    ];
    expect(answers.length).toBeGreaterThan(30);
    expect(logLines.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(20);
      for (const text of [...answers, ...logLines]) expect(text.includes(secret)).toBe(false);
    }
  });
});
