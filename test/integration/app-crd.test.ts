/**
 * The generated App CRD on a real kube-apiserver: it is accepted as a structural schema, and a sample App of every
 * source type, with every field of contract §2.3 set, passes server-side dry run and real creation with strict
 * field validation (an unknown field would be an error) and reads back unpruned, with the schema's defaults. Its
 * category collides with no name or short name the apiserver serves, so `kubectl get svc` still lists Services.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { APP_GROUP, APP_PLURAL, APP_VERSION } from '../../src/core/app-schema.ts';
import { APP_CATEGORY } from '../../src/core/crd.ts';
import { connect, type KubeClient, type KubeConnection } from '../../src/kube/index.ts';
import { kubectl } from '../harness/index.ts';

const ns = 'crd-samples';
let kube: KubeConnection;
const collection = `/apis/${APP_GROUP}/${APP_VERSION}/namespaces/${ns}/${APP_PLURAL}`;
type Obj = Record<string, unknown> & { spec?: unknown; status?: unknown };

/** Creates an App; `dryRun` and strict field validation as asked. */
const create = (body: unknown, query: { dryRun?: 'All'; fieldValidation?: 'Strict' } = {}) =>
  kube.client.request<Obj>(collection, { method: 'POST', body, query });
const read = (name: string) => kube.client.request<Obj>(`${collection}/${name}`);

const fullGit = {
  type: 'Git',
  git: {
    repoURL: 'https://git.example.com/shop/web.git',
    branch: 'release',
    path: 'deploy/prod',
    manifestType: 'Kustomize',
    helm: { valuesFile: 'values-prod.yaml', releaseName: 'web', namespace: 'shop', inlineValues: { 'image.tag': '2' } },
    kustomize: { images: ['web=registry.example.com/web:2'], namePrefix: 'prod-', components: ['../components/tls'] },
    substitution: { DOMAIN: 'shop.example.com' },
  },
};
const fullImage = {
  type: 'Image',
  image: {
    registryRef: 'corp-registry',
    repository: 'team/web',
    tag: '1.4.2',
    tagPolicy: 'Follow',
    pullSecretRef: 'regcred',
    workload: {
      port: 8080,
      replicas: 3,
      env: [
        { name: 'MODE', value: 'prod' },
        { name: 'DB_PASSWORD', secretRef: { name: 'db', key: 'password' } },
        { name: 'API_TOKEN', store: { id: 'sts_123', path: 'web/api', key: 'token' } },
      ],
      resources: { requests: { cpu: '200m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } },
      probe: { disabled: false, path: '/healthz', initialDelaySeconds: 5, periodSeconds: 10, failureThreshold: 3 },
    },
    ingress: { enabled: true, host: 'web.example.com', tlsSecretRef: 'web-tls' },
    autoscaling: { enabled: true, min: 2, max: 10, cpuPercent: 70 },
  },
};
const helmChart = {
  type: 'HelmChart',
  helmChart: { repoURL: 'https://charts.example.com', chart: 'redis', version: '18.1.0', values: { replicas: 2 } },
};
const catalog = { type: 'Catalog', catalog: { template: 'postgres', params: { size: 'small' } } };

function app(name: string, source: object) {
  return {
    apiVersion: `${APP_GROUP}/${APP_VERSION}`,
    kind: 'App',
    metadata: { name, namespace: ns },
    spec: {
      source,
      destination: { namespace: 'shop', cluster: 'edge-eu' },
      syncPolicy: { automated: true, prune: true, selfHeal: false, requiresApproval: true },
      freeze: false,
      notifications: {
        chat: {
          webhookURL: 'https://chat.example.com/hook',
          onSyncSuccess: true,
          onSyncFailure: true,
          onHealthDegraded: true,
        },
      },
      webhook: { enabled: true, secretRef: 'push-secret' },
      operation: {
        kind: 'Rollback',
        initiatedAt: '2026-11-01T10:00:00Z',
        id: '0b9c7e0e-8d1f-4f7a-9a43-1f2b3c4d5e6f',
        revision: 'abc123',
        triggeredBy: 'user-1',
      },
    },
  };
}

const samples = [
  ['git', fullGit],
  ['image', fullImage],
  ['helmchart', helmChart],
  ['catalog', catalog],
] as const;

beforeAll(async () => {
  kube = connect({ kubeconfigPath: inject('mgmtKubeconfig') });
  await kube.objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});

afterAll(async () => {
  await kube.objects.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns });
});

describe('App CRD on a real apiserver', () => {
  it.each(samples)(
    'accepts a complete %s App in a server-side dry run, then creates it unpruned',
    async (name, source) => {
      const body = app(name, source);
      const dry = await create(body, { dryRun: 'All', fieldValidation: 'Strict' });
      expect(dry.spec).toEqual(body.spec);
      await expect(read(name)).rejects.toMatchObject({ status: 404 });

      await create(body, { fieldValidation: 'Strict' });
      const stored = await read(name);
      expect(stored.spec).toEqual(body.spec);
    },
  );

  it('fills the defaults of contract §2.3 on a minimal App', async () => {
    const body = {
      apiVersion: `${APP_GROUP}/${APP_VERSION}`,
      kind: 'App',
      metadata: { name: 'minimal', namespace: ns },
      spec: {
        source: { type: 'Image', image: { repository: 'nginx', tag: '1.27', workload: {} } },
        destination: { namespace: 'web' },
        syncPolicy: {},
      },
    };
    const created = await create(body, { fieldValidation: 'Strict' });
    expect(created.spec).toEqual({
      source: {
        type: 'Image',
        image: {
          repository: 'nginx',
          tag: '1.27',
          tagPolicy: 'Pinned',
          workload: { port: 80, replicas: 1, resources: { requests: { cpu: '100m', memory: '128Mi' } } },
        },
      },
      destination: { namespace: 'web', cluster: '' },
      syncPolicy: { automated: false, prune: false, selfHeal: false, requiresApproval: false },
      freeze: false,
    });
  });

  it('rejects enum violations and unknown fields', async () => {
    const bad = app('bad-enum', { type: 'Svn' });
    await expect(create(bad, { dryRun: 'All' })).rejects.toMatchObject({ status: 422 });
    const unknown = app('bad-field', { ...fullGit, git: { ...fullGit.git, colour: 'red' } });
    await expect(create(unknown, { dryRun: 'All', fieldValidation: 'Strict' })).rejects.toThrow(/colour/);
  });

  it('takes syncPolicy.autoRollback.onDegradedFor as a Go-style duration only', async () => {
    const withDelay = (name: string, onDegradedFor: string) => {
      const a = app(name, fullGit);
      return { ...a, spec: { ...a.spec, syncPolicy: { automated: true, autoRollback: { onDegradedFor } } } };
    };
    await expect(create(withDelay('ar-ok', '1h30m'), { dryRun: 'All' })).resolves.toMatchObject({
      spec: { syncPolicy: { autoRollback: { onDegradedFor: '1h30m' } } },
    });
    for (const bad of ['soon', '5', '-5m', '5 m']) {
      await expect(create(withDelay('ar-bad', bad), { dryRun: 'All' })).rejects.toMatchObject({ status: 422 });
    }
  });

  it('accepts a status written through the status subresource', async () => {
    const status = {
      syncStatus: 'Synced',
      healthStatus: 'Healthy',
      healthReason: '',
      lastSyncAt: '2026-11-01T10:00:01Z',
      revision: 'abc123',
      observedRevision: 'abc123',
      previousRevisions: ['abc123', 'def456'],
      objectHash: 'sha256:00',
      url: 'https://web.example.com',
      operationState: {
        kind: 'Sync',
        initiatedAt: '2026-11-01T10:00:00Z',
        id: 'x',
        phase: 'Succeeded',
        revision: 'abc123',
        finishedAt: '2026-11-01T10:00:01Z',
        message: 'applied 3 objects',
        triggeredBy: 'webhook:gitA',
      },
      resources: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'web',
          namespace: 'shop',
          syncStatus: 'Synced',
          healthStatus: 'Healthy',
          message: '',
        },
      ],
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Synced', message: '', lastTransitionTime: '2026-11-01T10:00:01Z' },
      ],
      observedGeneration: 1,
      appliedKinds: ['apps/v1/Deployment'],
      inventory: [{ id: 'shop_web_apps_Deployment', v: 'v1' }],
    };
    const current = await read('git');
    const updated = await kube.client.request<Obj>(`${collection}/git/status`, {
      method: 'PUT',
      body: { ...current, status },
      query: { fieldValidation: 'Strict' },
    });
    expect(updated.status).toEqual(status);
  });
});

interface DiscoveredResource {
  name: string;
  singularName?: string;
  shortNames?: string[];
  categories?: string[];
}

/** Every resource the apiserver serves (core group and every version of every group), from its discovery. */
async function servedResources(client: KubeClient): Promise<DiscoveredResource[]> {
  const paths = ['/api/v1'];
  const groups = await client.request<{ groups: { versions: { groupVersion: string }[] }[] }>('/apis');
  for (const g of groups.groups) for (const v of g.versions) paths.push(`/apis/${v.groupVersion}`);
  const lists = await Promise.all(paths.map((p) => client.request<{ resources: DiscoveredResource[] }>(p)));
  return lists.flatMap((l) => l.resources.filter((r) => !r.name.includes('/')));
}

describe('App CRD names on a real apiserver', () => {
  it('has no category equal to a name or short name the apiserver serves (categories win in kubectl)', async () => {
    const served = await servedResources(kube.client);
    const apps = served.find((r) => r.name === APP_PLURAL && r.categories !== undefined);
    expect(apps?.categories).toEqual([APP_CATEGORY]);
    const names = new Set(served.flatMap((r) => [r.name, r.singularName ?? '', ...(r.shortNames ?? [])]));
    expect(names).toContain('svc');
    expect((apps?.categories ?? []).filter((c) => names.has(c))).toEqual([]);
  });

  it('leaves `kubectl get svc` to Services and lists Apps under its own category', async () => {
    const kubeconfig = inject('mgmtKubeconfig');
    // A fresh discovery cache, as a user's kubectl has after svc is installed: kubectl expands categories from its
    // cache without refreshing it, and the harness's cache was filled before the CRD existed.
    const cache = mkdtempSync(join(tmpdir(), 'svc-kubectl-'));
    try {
      const services = await kubectl(kubeconfig, ['--cache-dir', cache, 'get', 'svc', '-A', '-o', 'name']);
      expect(services.stdout.split('\n')).toContain('service/kubernetes');
      expect(services.stdout).not.toContain('app.cd.svc.space');
      const apps = await kubectl(kubeconfig, ['--cache-dir', cache, 'get', APP_CATEGORY, '-n', ns, '-o', 'name']);
      expect(apps.stdout.split('\n')).toContain('app.cd.svc.space/git');
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
