/**
 * Multi-cluster delivery on three real apiservers (contract §1, §3 rule 8, §4.2 rule 4, §4.3): the harness's
 * management plane holds the Apps; `east` (own etcd, controllers, kwok) and `west` (own etcd, apiserver only) are
 * registered through the API. An in-process operator reaches them only through the server's internal channel.
 * Proves: objects, labels, health from the remote Pods, events merged into the App's events, restart, prune and
 * cascade deletion on the remote; two remotes at once; credentials rotated by PATCH used without an operator
 * restart; a stopped remote → SyncError ClusterUnreachable with nothing deleted, then Synced once it is back; shell
 * pods with view and admin power (checked with the ServiceAccounts' own tokens against the real apiserver), their
 * attach token's limits, and their expiry. At the end every API answer, log line and event is scanned for the
 * registered credentials.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { type KubeClient, reviewToken } from '../../src/kube/index.ts';
import {
  type ControlPlane,
  type GitRepo,
  type GitServer,
  kubeClient,
  serviceAccountKubeconfig,
  serviceAccountToken,
  startControlPlane,
  startGitServer,
  waitUntil,
} from '../harness/index.ts';
import { auditEntries, mintKey, type OrgApi, type Reply, signUpMember, startOrgApi } from './api-support.ts';
import {
  configMapYaml,
  createApp as createAppResource,
  deleteNamespaces,
  deploymentYaml,
  getApp,
  getObject,
  kube,
  startTestOperator,
  type TestOperator,
  waitForApp,
} from './operator-support.ts';

const suffix = randomBytes(3).toString('hex');
const destEast = `east-${suffix}`;
const destWest = `west-${suffix}`;

const deleteAppResource = (namespace: string, name: string) =>
  kube().delete({ apiVersion: 'cd.svc.space/v1alpha1', kind: 'App', namespace, name });
const condition = (app: AppResource | undefined, type: string) => app?.status?.conditions?.find((c) => c.type === type);
const syncedAt = (rev: string) => (a: AppResource) =>
  a.status?.syncStatus === 'Synced' &&
  a.status.healthStatus === 'Healthy' &&
  a.status.revision === rev &&
  condition(a, 'SyncError')?.status === 'False';

describe('remote clusters', () => {
  let org: OrgApi;
  let east: ControlPlane;
  let west: ControlPlane;
  let git: GitServer;
  let op: TestOperator;
  let eastAdmin: KubeClient;
  let westAdmin: KubeClient;
  let webRepo: GitRepo;
  let cfgRepo: GitRepo;
  const credentials = { a: '', b: '' };
  const apiLogs: string[] = [];
  const operatorLogs: string[] = [];
  const answers: string[] = [];

  async function call<T = Record<string, unknown>>(
    method: string,
    url: string,
    options: { body?: unknown; cookie?: string; key?: string } = {},
  ): Promise<Reply<T>> {
    const cred = options.key ? { key: options.key } : { cookie: options.cookie ?? org.owner.cookie };
    const res = await org.api.call<T>(method, url, { ...cred, ...(options.body ? { body: options.body } : {}) });
    answers.push(JSON.stringify(res.body));
    return res;
  }

  const remoteObject = (client: KubeClient, path: string) =>
    client.request<Record<string, unknown> & { metadata: Record<string, unknown> }>(path).catch((err: unknown) => {
      if ((err as { status?: number }).status === 404) return undefined;
      throw err;
    });

  beforeAll(async () => {
    [org, east, west, git] = await Promise.all([
      startOrgApi('remote', {}, { logLines: apiLogs }),
      startControlPlane({ name: 'east', crds: false }),
      startControlPlane({ name: 'west', kwok: false, controllers: false, crds: false }),
      startGitServer(),
    ]);
    eastAdmin = kubeClient(east.admin);
    westAdmin = kubeClient(west.admin);
    // Two credentials for east, each a ServiceAccount token with cluster-admin: `a` is registered, `b` rotated in.
    for (const name of ['a', 'b'] as const) {
      credentials[name] = await serviceAccountKubeconfig(east, {
        name: `svc-${name}`,
        namespace: 'svc-creds',
        clusterRole: 'cluster-admin',
      });
    }
    webRepo = await git.createRepo(`web-${suffix}`, {
      'm/web.yaml': deploymentYaml('web', 2),
      'm/settings.yaml': configMapYaml('settings'),
    });
    cfgRepo = await git.createRepo(`cfg-${suffix}`, { 'm/cfg.yaml': configMapYaml('cfg', { v: '1' }) });
    const registered = await Promise.all([
      call('POST', '/api/v1/clusters', {
        body: { name: 'east', server_url: east.serverURL, kubeconfig: credentials.a },
      }),
      call('POST', '/api/v1/clusters', {
        body: {
          name: 'west',
          server_url: west.serverURL,
          kubeconfig: west.tokenKubeconfigYaml,
          namespaces: [destWest],
        },
      }),
    ]);
    expect(registered.map((r) => r.status)).toEqual([201, 201]);
    op = await startTestOperator(org.orgNs, {
      serverChannel: org.api.app.serverChannel,
      remoteRevalidateMs: 500,
      logLines: operatorLogs,
    });
  });

  afterAll(async () => {
    await op?.stop();
    await org?.api.close();
    await eastAdmin?.dropConnections();
    await westAdmin?.dropConnections();
    await Promise.all([east?.stop(), west?.stop(), git?.stop()]);
    await deleteNamespaces(`${org?.orgNs}`);
  });

  const createApp = (name: string, cluster: string, namespace: string, repo: GitRepo) =>
    call('POST', '/api/v1/apps', {
      body: {
        name,
        namespace,
        cluster,
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        sync_policy: { automated: true, prune: true },
      },
    });

  it('deploys to two remotes at once: objects there with the labels, health from the remote Pods', async () => {
    expect((await createApp('web', 'east', destEast, webRepo)).status).toBe(201);
    expect((await createApp('cfg', 'west', destWest, cfgRepo)).status).toBe(201);
    const [web] = await Promise.all([
      waitForApp(org.orgNs, 'web', 'web Synced/Healthy on east', syncedAt(await webRepo.head())),
      waitForApp(org.orgNs, 'cfg', 'cfg Synced/Healthy on west', syncedAt(await cfgRepo.head())),
    ]);
    expect(web.status?.resources?.map((r) => `${r.kind}/${r.name}/${r.healthStatus}`).sort()).toEqual([
      'ConfigMap/settings/Healthy',
      'Deployment/web/Healthy',
    ]);
    const deployment = await remoteObject(eastAdmin, `/apis/apps/v1/namespaces/${destEast}/deployments/web`);
    expect(deployment?.metadata['labels']).toMatchObject({
      'cd.svc.space/app': 'web',
      'cd.svc.space/app-namespace': org.orgNs,
    });
    const pods = await eastAdmin.request<{ items: { status: { conditions?: { type: string; status: string }[] } }[] }>(
      `/api/v1/namespaces/${destEast}/pods`,
      { query: { labelSelector: 'app=web' } },
    );
    expect(pods.items).toHaveLength(2);
    for (const pod of pods.items) expect(pod.status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(await remoteObject(westAdmin, `/api/v1/namespaces/${destWest}/configmaps/cfg`)).toBeDefined();
    // Nothing landed on the management cluster.
    expect(await getObject('apps/v1', 'Deployment', destEast, 'web')).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', destWest, 'cfg')).toBeUndefined();
  });

  it('applies nothing for an App written directly with a namespace outside the cluster’s allowlist', async () => {
    await createAppResource(
      org.orgNs,
      'stray',
      {
        source: { type: 'Git', git: { repoURL: cfgRepo.url, path: 'm' } },
        destination: { cluster: 'west', namespace: 'not-allowed' },
      },
      { 'cd.svc.space/delete-policy': 'orphan' },
    );
    const stray = await waitForApp(org.orgNs, 'stray', 'DestinationFailed', (a) => !!condition(a, 'SyncError'));
    expect(condition(stray, 'SyncError')).toMatchObject({
      status: 'True',
      reason: 'DestinationFailed',
      message: expect.stringContaining('allowlist'),
    });
    expect(await remoteObject(westAdmin, '/api/v1/namespaces/not-allowed')).toBeUndefined();
    await deleteAppResource(org.orgNs, 'stray');
  });

  it('merges the remote workloads’ events into the App’s events', async () => {
    const events = await waitUntil(
      async () => {
        const res = await call<{ events: { source: string; object: string; reason: string }[] }>(
          'GET',
          `/api/v1/apps/${destEast}/web/events`,
        );
        return res.body.events.some((e) => e.source === 'workload' && e.object === 'Deployment/web')
          ? res.body.events
          : undefined;
      },
      { what: 'workload events of east', timeoutMs: 30_000 },
    );
    expect(events.find((e) => e.object === 'Deployment/web')).toMatchObject({ reason: 'ScalingReplicaSet' });
  });

  it('restarts the workload there', async () => {
    const res = await call<{ operation_id: string }>('POST', `/api/v1/apps/${destEast}/web/restart`);
    expect(res.status).toBe(200);
    await waitForApp(org.orgNs, 'web', 'restart Succeeded', (a) => {
      const s = a.status?.operationState;
      return s?.id === res.body.operation_id && s.phase === 'Succeeded';
    });
    const deployment = await remoteObject(eastAdmin, `/apis/apps/v1/namespaces/${destEast}/deployments/web`);
    const spec = deployment?.['spec'] as
      | { template: { metadata: { annotations?: Record<string, string> } } }
      | undefined;
    expect(spec?.template.metadata.annotations?.['cd.svc.space/restartedAt']).toEqual(expect.any(String));
  });

  it('uses credentials rotated by PATCH without an operator restart, and prunes there', async () => {
    const rotated = await call('PATCH', '/api/v1/clusters/east', { body: { kubeconfig: credentials.b } });
    expect(rotated.status).toBe(200);
    // Revoke the first credential: from now on only the rotated one can work.
    await eastAdmin.request('/api/v1/namespaces/svc-creds/serviceaccounts/svc-a', { method: 'DELETE' });
    const oldToken = /token: (\S+)/.exec(credentials.a)?.[1] ?? '';
    await waitUntil(async () => !(await reviewToken(eastAdmin, oldToken)).authenticated, {
      what: 'the first credential revoked',
    });
    const head = await webRepo.commit(
      { 'm/settings.yaml': null, 'm/other.yaml': configMapYaml('other') },
      'replace settings by other',
    );
    await waitForApp(org.orgNs, 'web', 'web Synced at the new commit', syncedAt(head));
    expect(await remoteObject(eastAdmin, `/api/v1/namespaces/${destEast}/configmaps/other`)).toBeDefined();
    expect(await remoteObject(eastAdmin, `/api/v1/namespaces/${destEast}/configmaps/settings`)).toBeUndefined();
    expect(operatorLogs.some((l) => l.includes('cluster record changed: reconnecting'))).toBe(true);
  });

  it('reports a stopped remote as ClusterUnreachable and deletes nothing; Synced again once it is back', async () => {
    const before = await remoteObject(westAdmin, `/api/v1/namespaces/${destWest}/configmaps/cfg`);
    await west.down();
    try {
      const down = await waitForApp(
        org.orgNs,
        'cfg',
        'SyncError ClusterUnreachable',
        (a) => condition(a, 'SyncError')?.reason === 'ClusterUnreachable',
      );
      expect(condition(down, 'SyncError')).toMatchObject({ status: 'True', message: expect.stringContaining('west') });
      expect(down.status?.healthStatus).toBe('Unknown');
      expect(condition(down, 'Stalled')).toBeUndefined();
      // The other remote carries on.
      const web = await getApp(org.orgNs, 'web');
      expect(condition(web, 'SyncError')?.status).toBe('False');
      const clusters = await call<{ clusters: { name: string; status: string }[] }>('GET', '/api/v1/clusters');
      expect(clusters.body.clusters.map((c) => `${c.name}:${c.status}`)).toEqual([
        'east:connected',
        'west:disconnected',
      ]);
    } finally {
      await west.up();
    }
    await waitForApp(org.orgNs, 'cfg', 'cfg Synced again', syncedAt(await cfgRepo.head()));
    const after = await remoteObject(westAdmin, `/api/v1/namespaces/${destWest}/configmaps/cfg`);
    expect(after?.metadata['uid']).toBe(before?.metadata['uid']);
  });

  it('refuses to remove a cluster Apps deploy to, and cascades an App’s deletion to the remote', async () => {
    const blocked = await call('DELETE', '/api/v1/clusters/east');
    expect(blocked).toMatchObject({ status: 409, body: { error: expect.stringContaining(`${destEast}/web`) } });
    expect((await call('DELETE', `/api/v1/apps/${destEast}/web`)).status).toBe(200);
    await waitUntil(async () => (await getApp(org.orgNs, 'web')) === undefined, { what: 'App web gone' });
    expect(await remoteObject(eastAdmin, `/apis/apps/v1/namespaces/${destEast}/deployments/web`)).toBeUndefined();
    expect(await remoteObject(eastAdmin, `/api/v1/namespaces/${destEast}/configmaps/other`)).toBeUndefined();
    expect(await remoteObject(eastAdmin, `/api/v1/namespaces/${destEast}`)).toBeDefined();
  });

  describe('shell pods', () => {
    const shells: Record<string, { pod: string; service_account: string; power: string; attach: { token: string } }> =
      {};
    const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    /** A client acting as the shell's own ServiceAccount (a TokenRequest token), against the real apiserver. */
    const asShell = async (shell: { service_account: string }) =>
      kubeClient({
        serverURL: east.serverURL,
        caPEM: east.caPEM,
        token: await serviceAccountToken(east.kubeconfigPath, { name: shell.service_account, namespace: 'svc-shell' }),
      });

    it('gives an admin an admin shell and a read-only key a view shell, on the real apiserver', async () => {
      const admin = await call<{ shell: (typeof shells)[string] }>('POST', '/api/v1/clusters/east/shell', {
        body: { ttl_seconds: 600 },
      });
      expect(admin.status, JSON.stringify(admin.body)).toBe(201);
      expect(admin.body.shell).toMatchObject({ power: 'admin', namespace: 'svc-shell', container: 'shell' });
      const readKey = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'read' });
      const view = await call<{ shell: (typeof shells)[string] }>('POST', '/api/v1/clusters/east/shell', {
        key: readKey.key,
      });
      expect(view.status).toBe(201);
      expect(view.body.shell).toMatchObject({ power: 'view', expires_at: expect.any(String) });
      expect(view.body.shell.attach).toMatchObject({
        server: east.serverURL,
        certificate_authority_data: Buffer.from(east.caPEM).toString('base64'),
        command: expect.stringContaining(`exec -it ${view.body.shell.pod} -c shell`),
      });
      shells['admin'] = admin.body.shell;
      shells['view'] = view.body.shell;

      const adminSA = await asShell(admin.body.shell);
      const viewSA = await asShell(view.body.shell);
      try {
        const path = `/api/v1/namespaces/${destEast}/configmaps`;
        const created = await adminSA.request(path, { method: 'POST', body: configMap('by-admin-shell') });
        expect(created).toMatchObject({ metadata: { name: 'by-admin-shell' } });
        const refused = await viewSA
          .request(path, { method: 'POST', body: configMap('by-view-shell') })
          .catch((e) => e);
        expect(refused).toMatchObject({ status: 403 });
        const listed = await viewSA.request<{ items: unknown[] }>(path);
        expect(listed.items.length).toBeGreaterThan(0);
      } finally {
        await adminSA.dropConnections();
        await viewSA.dropConnections();
      }
      const pod = await remoteObject(eastAdmin, `/api/v1/namespaces/svc-shell/pods/${view.body.shell.pod}`);
      expect(pod?.['spec']).toMatchObject({ serviceAccountName: view.body.shell.service_account });
      const viewer = await signUpMember(org.api, org.owner, org.orgId, 'viewer', 'viewer');
      expect((await call('POST', '/api/v1/clusters/east/shell', { cookie: viewer.cookie })).status).toBe(403);
      const audited = await auditEntries(org.api, org.owner, 'cluster.shell', 'east');
      expect(audited.map((e) => (e['details'] as { power: string }).power).sort()).toEqual(['admin', 'view']);
      expect(JSON.stringify(audited)).not.toContain(view.body.shell.attach.token);
    });

    it('answers an attach token that may only get and exec into its own pod', async () => {
      const view = shells['view'];
      const admin = shells['admin'];
      if (!view || !admin) throw new Error('the first shell test did not run');
      const attach = kubeClient({ serverURL: east.serverURL, caPEM: east.caPEM, token: view.attach.token });
      try {
        expect(await attach.request(`/api/v1/namespaces/svc-shell/pods/${view.pod}`)).toMatchObject({
          metadata: { name: view.pod },
        });
        const other = await attach.request(`/api/v1/namespaces/svc-shell/pods/${admin.pod}`).catch((e) => e);
        expect(other).toMatchObject({ status: 403 });
        const write = await attach
          .request(`/api/v1/namespaces/${destEast}/configmaps`, { method: 'POST', body: configMap('by-attach') })
          .catch((e) => e);
        expect(write).toMatchObject({ status: 403 });
      } finally {
        await attach.dropConnections();
      }
    });

    it('removes expired shells from the cluster; their attach tokens stop working', async () => {
      const view = shells['view'];
      if (!view) throw new Error('the first shell test did not run');
      expect(await org.api.app.shellJanitor.sweep()).toBe(0);
      const ended = await org.api.app.shellJanitor.sweep(new Date(Date.now() + 3_600_000));
      expect(ended).toBe(2);
      for (const shell of Object.values(shells)) {
        expect(
          await remoteObject(eastAdmin, `/api/v1/namespaces/svc-shell/serviceaccounts/${shell.service_account}`),
        ).toBe(undefined);
        expect(
          await remoteObject(
            eastAdmin,
            `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${shell.service_account}`,
          ),
        ).toBeUndefined();
      }
      await waitUntil(
        async () => {
          const pods = await eastAdmin.request<{ items: unknown[] }>('/api/v1/namespaces/svc-shell/pods');
          return pods.items.length === 0;
        },
        { what: 'shell pods gone' },
      );
      await waitUntil(async () => !(await reviewToken(eastAdmin, view.attach.token)).authenticated, {
        what: 'the attach token refused once its pod is gone',
      });
      expect(await org.api.app.shellJanitor.sweep(new Date(Date.now() + 7_200_000))).toBe(0);
    });
  });

  it('never shows a registered credential in an API answer, a log line or an event', async () => {
    const tokenOf = (kubeconfig: string) => /token: (\S+)/.exec(kubeconfig)?.[1] ?? 'unset';
    const secrets = [tokenOf(credentials.a), tokenOf(credentials.b), west.token];
    const events = [
      ...(await eastAdmin.request<{ items: unknown[] }>('/api/v1/events')).items,
      ...(await westAdmin.request<{ items: unknown[] }>('/api/v1/events')).items,
    ].map((e) => JSON.stringify(e));
    const mgmtEvents = await call<{ events: unknown[] }>('GET', `/api/v1/apps/${destWest}/cfg/events`);
    expect(mgmtEvents.body.events.length).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(10);
    expect(apiLogs.length + operatorLogs.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(20);
      for (const text of [...answers, ...apiLogs, ...operatorLogs, ...events])
        expect(text.includes(secret)).toBe(false);
    }
  });
});
