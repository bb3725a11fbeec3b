/**
 * An AppSet over three real control planes (issue 27, "Real parts in the tests"): three apiservers with their own
 * etcd (`east`, `west`, `lab`) registered through the API as clusters with labels; a matrix of a `clusters`
 * generator (selecting `fleet: guestbook`) and a `gitDirectories` generator over a repository of the harness's git
 * server laid out like Argo CD's example apps (argoproj/argocd-example-apps: `guestbook/` plain manifests,
 * `kustomize-guestbook/` the same through a kustomization with `namePrefix: kustomize-`, `apps/` an app of apps,
 * excluded). Each cluster gets both Apps, Synced and Healthy, their objects on that plane only; a label change made
 * through the API drops a cluster (policy sync deletes its Apps, their objects are pruned from that plane) and
 * putting the label back brings them back.
 *
 * The planes run the apiserver only (no controller manager, scheduler or kwok: the machine is shared), so the
 * example's workloads are kinds Healthy without controllers: its Service, as in the example, and a ConfigMap in place
 * of its Deployment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_API_VERSION, APP_KIND, APPSET_LABEL } from '../../src/core/app-names.ts';
import type { AppResource } from '../../src/core/app-schema.ts';
import type { KubeClient } from '../../src/kube/index.ts';
import {
  type ControlPlane,
  type GitRepo,
  type GitServer,
  kubeClient,
  startControlPlane,
  startGitServer,
  waitUntil,
} from '../harness/index.ts';
import { type OrgApi, startOrgApi } from './api-support.ts';
import { deleteNamespaces, getObject, kube, startTestOperator, type TestOperator } from './operator-support.ts';

type Json = Record<string, unknown>;
const CLUSTERS = ['east', 'west', 'lab'] as const;
type ClusterName = (typeof CLUSTERS)[number];
const ENV: Record<ClusterName, string> = { east: 'prod', west: 'prod', lab: 'staging' };
const DIRS = ['guestbook', 'kustomize-guestbook'] as const;

/** The example's guestbook UI Service (port 80 to the guestbook-ui Pods). */
const SERVICE = `apiVersion: v1
kind: Service
metadata:
  name: guestbook-ui
spec:
  ports:
  - port: 80
    targetPort: 80
  selector:
    app: guestbook-ui
`;
/** Stands in for the example's Deployment (which would need a scheduler and nodes): the UI's settings. */
const CONFIG = `apiVersion: v1
kind: ConfigMap
metadata:
  name: guestbook-ui
data:
  image: gcr.io/google-samples/gb-frontend:v5
  containerPort: "80"
`;
const KUSTOMIZATION = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namePrefix: kustomize-
resources:
- guestbook-ui-config.yaml
- guestbook-ui-svc.yaml
`;
/** The example's app of apps: a directory the generator excludes. */
const APP_OF_APPS = `apiVersion: v2
name: applications
version: 0.1.0
`;

describe('an AppSet over three real control planes', () => {
  let org: OrgApi;
  let git: GitServer;
  let op: TestOperator;
  let repo: GitRepo;
  const planes = {} as Record<ClusterName, ControlPlane>;
  const admins = {} as Record<ClusterName, KubeClient>;

  beforeAll(async () => {
    const light = { kwok: false, controllers: false, crds: false };
    const [o, g, ...started] = await Promise.all([
      startOrgApi('fleet3'),
      startGitServer(),
      ...CLUSTERS.map((name) => startControlPlane({ name, ...light })),
    ]);
    [org, git] = [o, g];
    for (const [i, name] of CLUSTERS.entries()) {
      planes[name] = started[i] as ControlPlane;
      admins[name] = kubeClient(planes[name].admin);
    }
    repo = await git.createRepo('argocd-example-apps', {
      'guestbook/guestbook-ui-svc.yaml': SERVICE,
      'guestbook/guestbook-ui-config.yaml': CONFIG,
      'kustomize-guestbook/kustomization.yaml': KUSTOMIZATION,
      'kustomize-guestbook/guestbook-ui-svc.yaml': SERVICE,
      'kustomize-guestbook/guestbook-ui-config.yaml': CONFIG,
      'apps/Chart.yaml': APP_OF_APPS,
      'README.md': 'Example apps\n',
    });
    for (const name of CLUSTERS) {
      const res = await call('POST', '/clusters', {
        name,
        server_url: planes[name].serverURL,
        kubeconfig: planes[name].tokenKubeconfigYaml,
        labels: { fleet: 'guestbook', env: ENV[name] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    // Registered clusters and their labels reach the operator over the internal channel, as `svc start` wires it.
    op = await startTestOperator(org.orgNs, { serverChannel: org.api.app.serverChannel, appSetResyncMs: 2_000 });
  }, 180_000);

  afterAll(async () => {
    await op?.stop();
    await org?.api.close();
    for (const admin of Object.values(admins)) await admin.dropConnections();
    await Promise.all([...Object.values(planes).map((p) => p.stop()), git?.stop()]);
    if (org) await deleteNamespaces(org.orgNs);
  });

  function call<T = Json>(method: string, path: string, body?: unknown) {
    return org.api.call<T>(method, `/api/v1${path}`, {
      cookie: org.owner.cookie,
      ...(body === undefined ? {} : { body }),
    });
  }

  const appName = (dir: string, cluster: string) => `${dir}-${cluster}`;
  const objectNames = (dir: string) => (dir === 'kustomize-guestbook' ? 'kustomize-guestbook-ui' : 'guestbook-ui');
  /** The Service and the ConfigMap an App of `dir` deploys, on `cluster`'s plane (undefined for each one absent). */
  async function onPlane(cluster: ClusterName, dir: string) {
    const name = objectNames(dir);
    const get = (path: string) =>
      admins[cluster].request<Json & { metadata: Json }>(path).catch((err: unknown) => {
        if ((err as { status?: number }).status === 404) return undefined;
        throw err;
      });
    return Promise.all([
      get(`/api/v1/namespaces/${dir}/services/${name}`),
      get(`/api/v1/namespaces/${dir}/configmaps/${name}`),
    ]);
  }
  const generated = async () => {
    const list = await kube().list(APP_API_VERSION, APP_KIND, `${APPSET_LABEL}=guestbook`, org.orgNs);
    return list as unknown as AppResource[];
  };
  /** Waits until the AppSet's Apps are exactly those of `clusters`, each Synced and Healthy; answers them by name. */
  async function converged(clusters: readonly ClusterName[]) {
    const want = clusters.flatMap((c) => DIRS.map((d) => appName(d, c))).sort();
    let last = '';
    try {
      return await waitUntil(
        async () => {
          const apps = await generated();
          last = JSON.stringify(apps.map((a) => [a.metadata.name, a.status?.syncStatus, a.status?.healthStatus]));
          const names = apps.map((a) => a.metadata.name).sort();
          const ready = apps.every((a) => a.status?.syncStatus === 'Synced' && a.status.healthStatus === 'Healthy');
          return names.join() === want.join() && ready ? new Map(apps.map((a) => [a.metadata.name, a])) : undefined;
        },
        { what: `Apps of ${clusters.join(', ')} Synced and Healthy`, timeoutMs: 120_000, intervalMs: 500 },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\nlast: ${last}`);
    }
  }

  it('deploys the example apps to every labelled plane; a label change removes and brings back a cluster', async () => {
    const created = await call('POST', '/appsets', {
      name: 'guestbook',
      generators: [
        {
          matrix: {
            generators: [
              { clusters: { selector: { matchLabels: { fleet: 'guestbook' } } } },
              {
                gitDirectories: {
                  repoURL: repo.url,
                  directories: [{ path: '*' }, { path: 'apps', exclude: true }],
                },
              },
            ],
          },
        },
      ],
      template: {
        metadata: { name: '{{ path.basename }}-{{ name }}', labels: { env: '{{ metadata.labels.env }}' } },
        spec: {
          source: { type: 'Git', git: { repoURL: repo.url, path: '{{ path }}' } },
          destination: { cluster: '{{ name }}', namespace: '{{ path.basename }}' },
          syncPolicy: { automated: true, prune: true },
        },
      },
      // syncPolicy absent: applicationsSync `sync`, which deletes the Apps a cluster no longer generates.
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const apps = await converged(CLUSTERS);
    for (const cluster of CLUSTERS) {
      for (const dir of DIRS) {
        const app = apps.get(appName(dir, cluster));
        expect(app?.spec.destination).toEqual({ cluster, namespace: dir });
        expect(app?.metadata.labels).toMatchObject({ env: ENV[cluster], [APPSET_LABEL]: 'guestbook' });
        const [svc, cm] = await onPlane(cluster, dir);
        expect(svc?.metadata['labels']).toMatchObject({ 'cd.svc.space/app': appName(dir, cluster) });
        expect(cm?.['data']).toMatchObject({ image: 'gcr.io/google-samples/gb-frontend:v5' });
      }
    }
    // Nothing landed on the management plane.
    expect(await getObject('v1', 'ConfigMap', 'guestbook', 'guestbook-ui')).toBeUndefined();
    // The excluded directory made no App; the AppSet reports no error.
    const view = await call<{ apps: { name: string }[]; errors: string[] }>('GET', '/appsets/guestbook');
    expect(view.body.apps.map((a) => a.name)).not.toContain('apps-east');
    expect(view.body.errors).toEqual([]);

    // lab loses the label: its Apps are deleted (policy sync) and what they deployed is pruned from lab only.
    const dropped = await call('PATCH', '/clusters/lab', { labels: { env: 'staging' } });
    expect(dropped.status, JSON.stringify(dropped.body)).toBe(200);
    await converged(['east', 'west']);
    for (const dir of DIRS) {
      await waitUntil(async () => ((await onPlane('lab', dir)).every((o) => o === undefined) ? true : undefined), {
        what: `${dir} pruned from lab`,
        timeoutMs: 60_000,
      });
      for (const cluster of ['east', 'west'] as const) {
        expect((await onPlane(cluster, dir)).every((o) => o !== undefined)).toBe(true);
      }
    }

    // The label back: lab's Apps are generated again and deploy there again.
    const back = await call('PATCH', '/clusters/lab', { labels: { fleet: 'guestbook', env: 'staging' } });
    expect(back.status).toBe(200);
    await converged(CLUSTERS);
    for (const dir of DIRS) expect((await onPlane('lab', dir)).every((o) => o !== undefined)).toBe(true);
  }, 400_000);
});
