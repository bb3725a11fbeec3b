/**
 * The chart's RBAC is enough and no more. On a control plane of its own (the chart installs the CRD, which the
 * shared plane already has from the harness): `helm install` of deploy/chart creates every object it renders; then
 * `svc server` and `svc operator` run as local processes with the environment and arguments of the chart's
 * Deployments, the chart's Secret, and kubeconfigs holding TokenRequest tokens of the chart's ServiceAccounts, so
 * every Kubernetes call they make is authorized exactly as in the cluster. Through them: sign-up and org (the server
 * creates the org namespace and binds the operator's org role there), a Git App deployed, a signed push event
 * (the operator reads the App's webhook Secret in the org namespace) that prunes, a rollback, the push audited over
 * the internal channel (the operator's token checked by the server's TokenReview), the App deleted with what it
 * deployed, and a source carrying a Secret (outside the default allowlist) refused with the apiserver's 403. Then
 * `kubectl auth can-i --as=system:serviceaccount:…` and real requests show what both are refused (the server lists
 * no Pods and no ConfigMaps cluster-wide: its logs route says so). Last, `helm uninstall` leaves the chart's Secret
 * and the server's org RoleBindings, which the commands of docs/install.md remove.
 */
import { execFile } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  type ControlPlane,
  createPostgresDatabase,
  describeWith,
  freePort,
  type GitRepo,
  type GitServer,
  helm,
  kubeconfigYaml,
  kubectl,
  kubectlPath,
  type PostgresDatabase,
  postgresRequirement,
  repoRoot,
  serviceAccountToken,
  startControlPlane,
  startGitServer,
  waitUntil,
} from '../harness/index.ts';
import { type ManagedProcess, makeTempDir, removeTempDir, startProcess } from '../harness/process.ts';
import { configMapYaml, deploymentYaml } from './operator-support.ts';

const RELEASE = 'svc';
const NAMESPACE = 'svc-system';
const SERVER = `system:serviceaccount:${NAMESPACE}:svc-server`;
const OPERATOR = `system:serviceaccount:${NAMESPACE}:svc-operator`;

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef: { name: string; key: string } };
}
interface Rendered {
  kind: string;
  apiVersion: string;
  metadata: { name: string; namespace?: string };
  spec?: { template: { spec: { containers: { env: EnvVar[]; args: string[] }[] } } };
}

describeWith(postgresRequirement())('the chart installed, its ServiceAccounts driving svc', () => {
  const slug = `rb-${randomBytes(3).toString('hex')}`;
  const org = `org-${slug}`;
  const destination = `${slug}-shop`;
  const hookSecret = randomBytes(16).toString('hex');
  let plane: ControlPlane;
  let db: PostgresDatabase;
  let git: GitServer;
  let repo: GitRepo;
  let dir: string;
  let manifest: Rendered[];
  let manifestText = '';
  let server: ManagedProcess;
  let operator: ManagedProcess;
  let base = '';
  let webhook = '';
  let cookie = '';
  const revisions: string[] = [];

  const admin = (args: string[], input?: string) =>
    kubectl(plane.kubeconfigPath, args, input === undefined ? {} : { input });
  /** The live object, or undefined when it does not exist. */
  const live = async (kind: string, name: string, namespace = destination) =>
    admin(['get', kind, name, '-n', namespace, '-o', 'json']).then(
      ({ stdout }) => JSON.parse(stdout) as Record<string, any>,
      () => undefined,
    );
  /** `kubectl auth can-i --quiet` as `user`: exit 0 = yes, exit 1 without an error = no, anything else throws. */
  const canI = (user: string, ...args: string[]) =>
    new Promise<boolean>((resolveCan, reject) => {
      const argv = ['--kubeconfig', plane.kubeconfigPath, 'auth', 'can-i', '--quiet', `--as=${user}`, ...args];
      execFile(kubectlPath(), argv, (error, _stdout, stderr) => {
        if (!error) resolveCan(true);
        // kubectl warns (and still answers) when a cluster-scoped resource is asked about in a namespace.
        else if (error.code === 1 && stderr.replace(/^Warning:.*$/gm, '').trim() === '') resolveCan(false);
        else reject(new Error(`kubectl auth can-i ${args.join(' ')}: ${stderr || error.message}`));
      });
    });

  async function call<T = any>(method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { origin: base };
    if (cookie) headers['cookie'] = cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T, headers: res.headers };
  }

  /** Environment of a component as the chart's Deployment sets it, Secret references read from the cluster. */
  async function chartEnv(deployment: string): Promise<Record<string, string>> {
    const d = manifest.find((o) => o.kind === 'Deployment' && o.metadata.name === deployment);
    const env: Record<string, string> = {};
    for (const v of d?.spec?.template.spec.containers[0]?.env ?? []) {
      if (v.value !== undefined) env[v.name] = v.value;
      else if (v.valueFrom) {
        const { stdout } = await admin(['get', 'secret', v.valueFrom.secretKeyRef.name, '-n', NAMESPACE, '-o', 'json']);
        const data = (JSON.parse(stdout) as { data: Record<string, string> }).data;
        env[v.name] = Buffer.from(data[v.valueFrom.secretKeyRef.key] ?? '', 'base64').toString('utf8');
      }
    }
    return env;
  }
  const chartArgs = (deployment: string): string[] =>
    manifest.find((o) => o.kind === 'Deployment' && o.metadata.name === deployment)?.spec?.template.spec.containers[0]
      ?.args ?? [];

  /** A kubeconfig file holding a TokenRequest token of one of the chart's ServiceAccounts. */
  async function tokenKubeconfig(name: string): Promise<{ path: string; token: string }> {
    const token = await serviceAccountToken(plane.kubeconfigPath, { name, namespace: NAMESPACE });
    const path = join(dir, `${name}.kubeconfig`);
    writeFileSync(path, kubeconfigYaml(name, { serverURL: plane.serverURL, caPEM: plane.caPEM, token }), {
      mode: 0o600,
    });
    return { path, token };
  }

  beforeAll(async () => {
    dir = makeTempDir('chart-rbac');
    [plane, db, git] = await Promise.all([
      startControlPlane({ name: 'install', crds: false }),
      createPostgresDatabase(),
      startGitServer(),
    ]);
    repo = await git.createRepo(`${slug}-web`, {
      'manifests/web.yaml': deploymentYaml('web'),
      'manifests/settings.yaml': configMapYaml('settings'),
    });
    revisions.push(await repo.head());

    await helm(
      [
        'install',
        RELEASE,
        join(repoRoot, 'deploy/chart'),
        '-n',
        NAMESPACE,
        '--create-namespace',
        '--set',
        `database.url=${db.url}`,
        '--set',
        'image.repository=registry.test/svc',
        '--wait',
        '--timeout=3m',
      ],
      { kubeconfigPath: plane.kubeconfigPath },
    );
    const { stdout } = await helm(['get', 'manifest', RELEASE, '-n', NAMESPACE], {
      kubeconfigPath: plane.kubeconfigPath,
    });
    manifestText = stdout;
    manifest = parseAllDocuments(stdout)
      .map((d) => d.toJS() as Rendered | null)
      .filter((o): o is Rendered => o !== null);

    const [serverCreds, operatorCreds] = [await tokenKubeconfig('svc-server'), await tokenKubeconfig('svc-operator')];
    const operatorToken = join(dir, 'operator.token');
    writeFileSync(operatorToken, operatorCreds.token, { mode: 0o600 });
    const [apiPort, webhookPort] = [await freePort(), await freePort()];
    base = `http://127.0.0.1:${apiPort}`;
    webhook = `http://127.0.0.1:${webhookPort}`;
    // Only what differs outside a Pod: where the kubeconfig and the data are, the ports, and the outbound scope
    // (the git server is on loopback).
    const local = (home: string) => ({
      PATH: process.env['PATH'] ?? '',
      HOME: home,
      SVC_DATA_DIR: home,
      SVC_OUTBOUND_SCOPE: 'loopback',
      SVC_LOG_LEVEL: 'warn',
    });
    const svcBin = join(repoRoot, 'bin/svc.js');
    server = startProcess('svc-server', process.execPath, [svcBin, ...chartArgs('svc-server')], {
      logDir: dir,
      leakScanAs: 'svc server log (chart RBAC)',
      env: {
        ...(await chartEnv('svc-server')),
        ...local(makeTempDir('chart-rbac-server')),
        SVC_MGMT_KUBECONFIG: serverCreds.path,
        SVC_LISTEN: `127.0.0.1:${apiPort}`,
      },
    });
    await waitUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok === true, {
      what: `svc server ready (log: ${server.logPath})`,
      timeoutMs: 60_000,
    });
    operator = startProcess(
      'svc-operator',
      process.execPath,
      [
        svcBin,
        ...chartArgs('svc-operator').filter((a) => !/^--(sync-period|[a-z-]*bind-address)=/.test(a)),
        '--sync-period=5s',
        `--webhook-bind-address=127.0.0.1:${webhookPort}`,
        '--metrics-bind-address=127.0.0.1:0',
        '--health-probe-bind-address=127.0.0.1:0',
      ],
      {
        leakScanAs: 'svc operator log (chart RBAC)',
        logDir: dir,
        env: {
          ...(await chartEnv('svc-operator')),
          ...local(makeTempDir('chart-rbac-operator')),
          SVC_MGMT_KUBECONFIG: operatorCreds.path,
          SVC_SERVER_URL: base,
          SVC_OPERATOR_TOKEN_FILE: operatorToken,
        },
      },
    );
  }, 300_000);

  afterAll(async () => {
    await operator?.stop();
    await server?.stop();
    await git?.stop();
    await plane?.stop();
    await db?.drop();
    if (dir) removeTempDir(dir);
  });

  it('helm install created every object the chart renders', async () => {
    expect(manifest.map((o) => o.kind).sort()).toEqual(
      [
        'ClusterRole',
        'ClusterRole',
        'ClusterRole',
        'ClusterRole',
        'ClusterRoleBinding',
        'ClusterRoleBinding',
        'ClusterRoleBinding',
        'CustomResourceDefinition',
        'CustomResourceDefinition',
        'Deployment',
        'Deployment',
        'NetworkPolicy',
        'NetworkPolicy',
        'Role',
        'RoleBinding',
        'Secret',
        'Service',
        'Service',
        'ServiceAccount',
        'ServiceAccount',
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
      ].sort(),
    );
    // `kubectl get -f` fails on the first object that does not exist.
    const { stdout: names } = await admin(['get', '-f', '-', '-o', 'name'], manifestText);
    expect(names.trim().split('\n')).toHaveLength(manifest.length);
    const { stdout } = await admin([
      'get',
      'deployments',
      '-n',
      NAMESPACE,
      '-o',
      'jsonpath={.items[*].status.readyReplicas}',
    ]);
    expect(stdout.split(' ')).toEqual(['1', '1']);
  });

  it("signs up and creates an org: the server creates the org namespace and binds the operator's org role there", async () => {
    const signUp = await call('POST', '/api/auth/sign-up/email', {
      email: `${slug}@example.test`,
      password: 'correct horse battery',
      name: 'Ada',
    });
    expect(signUp.status).toBe(200);
    cookie = signUp.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    expect((await call('POST', '/api/auth/organization/create', { name: 'RBAC', slug })).status).toBe(200);
    await waitUntil(async () => (await live('namespace', org, '')) !== undefined, { what: 'the org namespace' });
    // The org's webhook secret, as a user of the cluster would create it.
    await admin(['-n', org, 'create', 'secret', 'generic', 'hook', `--from-literal=secret=${hookSecret}`]);
  });

  it('deploys a Git App through the API and the operator', async () => {
    const created = await call('POST', '/api/v1/apps', {
      name: 'web',
      namespace: destination,
      source: { type: 'Git', git: { repoURL: repo.url, path: 'manifests' } },
      sync_policy: { prune: true },
      webhook: { enabled: true, secretRef: 'hook' },
    });
    expect(created.status).toBe(201);
    const binding = await live('rolebinding', 'svc-operator-org', org);
    expect(binding?.['subjects']).toEqual([{ kind: 'ServiceAccount', name: 'svc-operator', namespace: NAMESPACE }]);
    const sync = await call('POST', `/api/v1/apps/${destination}/web/sync`);
    expect(sync.status).toBe(200);
    const status = await call('GET', `/api/v1/apps/${destination}/web/status?wait=120s`);
    expect(status.body).toMatchObject({ sync_status: 'Synced', health: 'Healthy', revision: revisions[0] });
    expect(await live('configmap', 'settings')).toBeDefined();
  });

  it('reads Events and unmanaged workloads for the status and adopt routes (read-only rights)', async () => {
    const events = await call('GET', `/api/v1/apps/${destination}/web/events`);
    expect(events.status).toBe(200);
    expect(events.body.events.length).toBeGreaterThan(0);
    await admin(['-n', destination, 'create', 'deployment', 'legacy', '--image=nginx:1.0']);
    const adoptable = await call('GET', `/api/v1/apps/adoptable?namespace=${destination}`);
    expect(adoptable.status).toBe(200);
    expect(adoptable.body.workloads.map((w: { name: string }) => w.name)).toEqual(['legacy']);
  });

  it('reads what the App deployed for the diff and resource tree (the kinds the operator applies, read-only)', async () => {
    const diff = await call('GET', `/api/v1/apps/${destination}/web/diff`);
    expect(diff.status, JSON.stringify(diff.body)).toBe(200);
    expect(diff.body.objects.map((o: { kind: string }) => o.kind).sort()).toEqual(['ConfigMap', 'Deployment']);
    const resources = await call('GET', `/api/v1/apps/${destination}/web/resources`);
    expect(resources.status, JSON.stringify(resources.body)).toBe(200);
    expect(resources.body.nodes.map((n: { kind: string }) => n.kind)).toEqual(
      expect.arrayContaining(['ConfigMap', 'Deployment', 'ReplicaSet']),
    );
  });

  it('may not list Pods or ConfigMaps cluster-wide by default: the logs route says so, kubectl as the server is refused', async () => {
    // The App is Synced with a Deployment: its Pods exist, but svc's server may not list them (server.podReads off).
    const logs = await call<{ error: string }>('GET', `/api/v1/apps/${destination}/web/logs`);
    expect(logs.status).toBe(502);
    expect(logs.body.error).toBe(
      `svc's server may not list Pods in namespace ${destination} of the App's cluster (it answered 403), so it cannot read their logs; on Kubernetes the chart grants that with server.podReads=true`,
    );
    expect(await canI(SERVER, 'list', 'pods', '--all-namespaces')).toBe(false);
    expect(await canI(SERVER, 'list', 'configmaps', '--all-namespaces')).toBe(false);
    // Real requests as the server's ServiceAccount: the apiserver refuses them.
    const asServer = ['--as', SERVER];
    await expect(admin([...asServer, 'get', 'pods', '--all-namespaces'])).rejects.toThrow(/forbidden/i);
    await expect(admin([...asServer, 'get', 'pods', '-n', destination])).rejects.toThrow(/forbidden/i);
    await expect(admin([...asServer, 'get', 'configmaps', '--all-namespaces'])).rejects.toThrow(/forbidden/i);
    // What the diff and the tree read is still allowed: the App's own objects, by name.
    const { stdout } = await admin([...asServer, 'get', 'configmap', 'settings', '-n', destination, '-o', 'name']);
    expect(stdout.trim()).toBe('configmap/settings');
  });

  it('verifies a signed push event with the org Secret and prunes what left the source', async () => {
    const next = await repo.commit({ 'manifests/settings.yaml': null }, 'drop the settings');
    revisions.push(next);
    const body = JSON.stringify({ ref: 'refs/heads/main', after: next, repository: { clone_url: repo.url } });
    const deliver = (signature: string) =>
      fetch(`${webhook}/webhook/gitA`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': signature },
        body,
      });
    const forged = await deliver(`sha256=${createHmac('sha256', 'not the secret').update(body).digest('hex')}`);
    expect(await forged.json()).toEqual({ matched: 0 });
    const signed = await deliver(`sha256=${createHmac('sha256', hookSecret).update(body).digest('hex')}`);
    expect(await signed.json()).toEqual({ matched: 1 });
    await waitUntil(async () => (await live('configmap', 'settings')) === undefined, {
      what: 'the ConfigMap pruned',
      timeoutMs: 120_000,
    });
    const status = await call('GET', `/api/v1/apps/${destination}/web/status`);
    expect(status.body).toMatchObject({ revision: next, sync_status: 'Synced' });
  });

  it('rolls back to the first revision, which brings the ConfigMap back', async () => {
    const rollback = await call('POST', `/api/v1/apps/${destination}/web/rollback`, { revision: revisions[0] });
    expect(rollback.status).toBe(200);
    await waitUntil(async () => (await live('configmap', 'settings')) !== undefined, {
      what: 'the ConfigMap back',
      timeoutMs: 120_000,
    });
  });

  it('audits the push delivery over the internal channel, authenticated by TokenReview', async () => {
    const entries = async () => (await call('GET', '/api/v1/audit?limit=20')).body.entries as Record<string, any>[];
    await waitUntil(async () => (await entries()).some((e) => e['details']?.['triggeredBy'] === 'webhook:gitA'), {
      what: 'the push delivery audited',
      timeoutMs: 60_000,
    });
    const push = (await entries()).find((e) => e['details']?.['triggeredBy'] === 'webhook:gitA');
    expect(push).toMatchObject({ action: 'app.sync', user_id: '', resource_name: 'web' });
  });

  it('deletes the App and with it what it deployed', async () => {
    expect((await call('DELETE', `/api/v1/apps/${destination}/web`)).status).toBe(200);
    await waitUntil(async () => (await live('deployment', 'web')) === undefined, {
      what: 'the Deployment deleted with its App',
      timeoutMs: 120_000,
    });
    await waitUntil(async () => (await call('GET', `/api/v1/apps/${destination}/web`)).status === 404, {
      what: 'the App gone',
    });
  });

  it("refuses a kind outside the allowlist: a Secret in the source is a SyncError with the apiserver's 403", async () => {
    const secretRepo = await git.createRepo(`${slug}-secret`, {
      'manifests/secret.yaml': 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\nstringData:\n  k: v\n',
    });
    const created = await call('POST', '/api/v1/apps', {
      name: 'secretive',
      namespace: destination,
      source: { type: 'Git', git: { repoURL: secretRepo.url, path: 'manifests' } },
    });
    expect(created.status).toBe(201);
    expect((await call('POST', `/api/v1/apps/${destination}/secretive/sync`)).status).toBe(200);
    let syncError: { reason?: string; message?: string } | undefined;
    await waitUntil(
      async () => {
        const app = await live('apps.cd.svc.space', 'secretive', org);
        syncError = app?.['status']?.conditions?.find(
          (c: { type: string; status: string }) => c.type === 'SyncError' && c.status === 'True',
        );
        return syncError !== undefined;
      },
      { what: 'the SyncError of an App applying a Secret', timeoutMs: 60_000 },
    );
    expect(syncError?.message).toMatch(/Secret .*token.*forbidden/is);
    expect(await live('secret', 'token')).toBeUndefined();
    expect((await call('DELETE', `/api/v1/apps/${destination}/secretive`)).status).toBe(200);
  });

  it('the operator may not read Secrets outside org namespaces, nor write outside its scope', async () => {
    expect(await canI(OPERATOR, 'get', 'secrets', '-n', org)).toBe(true);
    expect(await canI(OPERATOR, 'get', 'secrets', '-n', 'kube-system')).toBe(false);
    expect(await canI(OPERATOR, 'get', 'secrets', '-n', destination)).toBe(false);
    expect(await canI(OPERATOR, 'list', 'secrets', '-n', org)).toBe(false);
    expect(await canI(OPERATOR, 'list', 'secrets', '--all-namespaces')).toBe(false);
    expect(await canI(OPERATOR, 'create', 'secrets', '-n', destination)).toBe(false);
    // Leader election and shard membership (issue 29): each replica's Lease is listed by label, created, renewed
    // and deleted on a clean stop.
    for (const verb of ['get', 'list', 'create', 'update', 'delete']) {
      expect(await canI(OPERATOR, verb, 'leases', '-n', NAMESPACE), verb).toBe(true);
    }
    expect(await canI(OPERATOR, 'update', 'leases', '-n', 'kube-system')).toBe(false);
    expect(await canI(OPERATOR, 'delete', 'namespaces')).toBe(false);
    expect(await canI(OPERATOR, 'create', 'clusterrolebindings')).toBe(false);
    expect(await canI(OPERATOR, 'create', 'rolebindings', '-n', destination)).toBe(false);
    expect(await canI(OPERATOR, 'create', 'pods/exec', '-n', destination)).toBe(false);
    // It creates and deletes the Apps AppSets generate (issue 27); AppSets themselves are the API's to write.
    expect(await canI(OPERATOR, 'create', 'apps.cd.svc.space', '-n', org)).toBe(true);
    expect(await canI(OPERATOR, 'delete', 'apps.cd.svc.space', '-n', org)).toBe(true);
    expect(await canI(OPERATOR, 'create', 'appsets.cd.svc.space', '-n', org)).toBe(false);
    expect(await canI(OPERATOR, 'delete', 'appsets.cd.svc.space', '-n', org)).toBe(false);
    expect(await canI(OPERATOR, 'patch', 'appsets.cd.svc.space', '-n', org, '--subresource=status')).toBe(true);
    expect(await canI(OPERATOR, 'create', 'customresourcedefinitions')).toBe(false);
  });

  it('the server may not read Secrets at all, nor write anything but Apps, org namespaces and the org binding', async () => {
    for (const ns of [org, destination, NAMESPACE, 'kube-system']) {
      expect(await canI(SERVER, 'get', 'secrets', '-n', ns)).toBe(false);
    }
    expect(await canI(SERVER, 'create', 'apps.cd.svc.space', '-n', org)).toBe(true);
    expect(await canI(SERVER, 'create', 'deployments', '-n', destination)).toBe(false);
    expect(await canI(SERVER, 'delete', 'deployments', '-n', destination)).toBe(false);
    expect(await canI(SERVER, 'delete', 'namespaces')).toBe(false);
    expect(await canI(SERVER, 'create', 'pods/exec', '-n', destination)).toBe(false);
    expect(await canI(SERVER, 'update', 'leases', '-n', NAMESPACE)).toBe(false);
    expect(await canI(SERVER, 'bind', 'clusterroles/cluster-admin')).toBe(false);
    // RBAC cannot limit a name prefix: its namespace and RoleBinding creations are confined by the chart's
    // ValidatingAdmissionPolicy, which real requests as the server meet.
    const asServer = ['--as', SERVER];
    await expect(admin([...asServer, 'create', 'namespace', `${slug}-evil`])).rejects.toThrow(
      /creates only org namespaces/,
    );
    await expect(admin([...asServer, 'create', 'namespace', `org-${slug}-second`])).resolves.toBeDefined();
    const binding = (namespace: string, role: string, sa = 'svc-operator') =>
      admin(
        [...asServer, 'create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: `probe-${randomBytes(3).toString('hex')}`, namespace },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
          subjects: [{ kind: 'ServiceAccount', name: sa, namespace: NAMESPACE }],
        }),
      );
    await expect(binding('kube-system', 'svc-operator-org')).rejects.toThrow(/binds only the operator's org role/);
    await expect(binding(org, 'svc-operator-org', 'svc-server')).rejects.toThrow(/binds only the operator's org role/);
    await expect(binding(org, 'cluster-admin')).rejects.toThrow(/forbidden/);
    await expect(binding(org, 'svc-operator-org')).resolves.toBeDefined();
  });
  it('helm uninstall keeps the chart Secret and the org RoleBindings; the documented commands remove them', async () => {
    // Nothing of svc runs once it is uninstalled.
    await operator.stop();
    await server.stop();
    await helm(['uninstall', RELEASE, '-n', NAMESPACE, '--wait', '--timeout=2m'], {
      kubeconfigPath: plane.kubeconfigPath,
    });
    // Kept on purpose (docs/install.md "Uninstall"): the credentials key opens every stored credential; the CRD
    // keeps every App; the server made the RoleBinding, not Helm.
    expect(await live('secret', 'svc-secrets', NAMESPACE)).toBeDefined();
    expect(await live('rolebinding', 'svc-operator-org', org)).toBeDefined();
    expect(await live('crd', 'apps.cd.svc.space', '')).toBeDefined();
    expect(await live('deployment', 'svc-server', NAMESPACE)).toBeUndefined();
    // The commands docs/install.md gives.
    await admin(['-n', NAMESPACE, 'delete', 'secret', 'svc-secrets']);
    await admin([
      'delete',
      'rolebindings',
      '--all-namespaces',
      '-l',
      'app.kubernetes.io/managed-by=svc',
      '--field-selector',
      'metadata.name=svc-operator-org',
    ]);
    expect(await live('secret', 'svc-secrets', NAMESPACE)).toBeUndefined();
    expect(await live('rolebinding', 'svc-operator-org', org)).toBeUndefined();
  });
});
