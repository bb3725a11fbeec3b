import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type ControlPlane,
  kubeClient,
  kubectl,
  serviceAccountKubeconfig,
  startControlPlane,
} from '../harness/index.ts';

// Proves the management control plane of the global setup (etcd, apiserver, controller-manager, scheduler, kwok)
// and a second, independent apiserver reached with a bearer-token kubeconfig.
describe('harness: management control plane', () => {
  const kubeconfig = inject('mgmtKubeconfig');
  const ns = `harness-kube-${Date.now().toString(36)}`;

  beforeAll(async () => {
    await kubectl(kubeconfig, ['create', 'namespace', ns]);
  });
  afterAll(async () => {
    await kubectl(kubeconfig, ['delete', 'namespace', ns, '--wait=false']);
  });

  it('rolls a Deployment out: Pods are scheduled onto the kwok node and become Ready', async () => {
    await kubectl(kubeconfig, [
      '-n',
      ns,
      'create',
      'deployment',
      'web',
      '--image=registry.invalid/web:1',
      '--replicas=2',
    ]);
    await kubectl(kubeconfig, ['-n', ns, 'rollout', 'status', 'deployment/web', '--timeout=90s']);
    const pods = JSON.parse((await kubectl(kubeconfig, ['-n', ns, 'get', 'pods', '-o', 'json'])).stdout) as {
      items: {
        spec: { nodeName?: string };
        status: { phase: string; conditions?: { type: string; status: string }[] };
      }[];
    };
    expect(pods.items).toHaveLength(2);
    for (const pod of pods.items) {
      expect(pod.spec.nodeName).toBe('kwok-node-0');
      expect(pod.status.phase).toBe('Running');
      expect(pod.status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    }
  });

  it('has the App CRD: an App applies, gets schema defaults, and `kubectl get app` finds it by short name', async () => {
    const app = {
      apiVersion: 'cd.svc.space/v1alpha1',
      kind: 'App',
      metadata: { name: 'guestbook', namespace: ns },
      spec: {
        source: { type: 'Git', git: { repoURL: 'http://127.0.0.1:1/guestbook.git' } },
        destination: { namespace: 'guestbook' },
      },
    };
    await kubectl(kubeconfig, ['apply', '--server-side', '-f', '-'], { input: JSON.stringify(app) });
    const { stdout } = await kubectl(kubeconfig, ['-n', ns, 'get', 'app', '-o', 'name']);
    expect(stdout.trim()).toBe('app.cd.svc.space/guestbook');
    const stored = JSON.parse(
      (await kubectl(kubeconfig, ['-n', ns, 'get', 'app', 'guestbook', '-o', 'json'])).stdout,
    ) as {
      spec: { source: { git: { branch: string } } };
    };
    expect(stored.spec.source.git.branch).toBe('main');
  });

  it('rejects an App that breaks the CRD schema', async () => {
    const file = join(tmpdir(), `${ns}-bad-app.json`);
    const bad = {
      apiVersion: 'cd.svc.space/v1alpha1',
      kind: 'App',
      metadata: { name: 'bad', namespace: ns },
      spec: {},
    };
    await writeFile(file, JSON.stringify(bad));
    await expect(kubectl(kubeconfig, ['create', '-f', file])).rejects.toThrow(/spec.source: Required value/);
  });
});

describe('harness: second apiserver (remote cluster)', () => {
  let remote: ControlPlane;

  beforeAll(async () => {
    remote = await startControlPlane({ name: 'remote', kwok: false, controllers: false, crds: false });
  });
  afterAll(async () => {
    await remote?.stop();
  });

  it('is reachable with its bearer-token kubeconfig (no exec plugin) and is independent of the management plane', async () => {
    expect(remote.tokenKubeconfigYaml).toContain(`token: ${remote.token}`);
    expect(remote.tokenKubeconfigYaml).not.toContain('exec');
    await kubectl(remote.tokenKubeconfigPath, ['create', 'namespace', 'only-on-remote']);
    const whoami = await kubectl(remote.tokenKubeconfigPath, [
      'auth',
      'whoami',
      '-o',
      'jsonpath={.status.userInfo.username}',
    ]);
    expect(whoami.stdout).toBe('svc-test-token');
    await expect(kubectl(inject('mgmtKubeconfig'), ['get', 'namespace', 'only-on-remote'])).rejects.toThrow(
      /not found/,
    );
  });

  it('mints a limited ServiceAccount kubeconfig: reads are allowed, writes are forbidden', async () => {
    const yaml = await serviceAccountKubeconfig(remote, { name: 'reader', clusterRole: 'system:aggregate-to-view' });
    const file = join(tmpdir(), `remote-reader-${Date.now()}.kubeconfig`);
    await writeFile(file, yaml);
    const whoami = await kubectl(file, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(whoami.stdout).toBe('system:serviceaccount:default:reader');
    await kubectl(file, ['get', 'configmaps', '--all-namespaces']);
    await expect(kubectl(file, ['create', 'namespace', 'not-allowed'])).rejects.toThrow(/forbidden/i);
  });

  it('refuses a wrong token with 401', async () => {
    const client = kubeClient({ serverURL: remote.serverURL, caPEM: remote.caPEM, token: 'not-the-token' });
    await expect(client.request('/api/v1/namespaces')).rejects.toMatchObject({ status: 401 });
    await client.dropConnections();
  });
});
