import { describe, expect, it } from 'vitest';
import {
  configMapYaml,
  createApp,
  deploymentYaml,
  getObject,
  kube,
  managers,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-deploy');
const { org } = suite;

const synced = (rev: string) => (a: { status?: { syncStatus?: string; healthStatus?: string; revision?: string } }) =>
  a.status?.syncStatus === 'Synced' && a.status.healthStatus === 'Healthy' && a.status.revision === rev;

async function expectDeployed(dest: string, appName: string, deployment: string) {
  const dep = await getObject('apps/v1', 'Deployment', dest, deployment);
  expect(dep?.metadata.labels?.['cd.svc.space/app']).toBe(appName);
  expect(dep?.metadata.labels?.['cd.svc.space/app-namespace']).toBe(org);
  expect(managers(dep)).toContain('svc-operator');
}

describe('deploying Git sources', () => {
  it('Raw: objects exist with the label and field manager, Pods go Ready, App Synced/Healthy at the commit', async () => {
    const repo = await suite.git.createRepo(unique('raw'), {
      'deploy/web.yaml': deploymentYaml('web', 2),
      'deploy/cm.yml': configMapYaml('settings'),
    });
    const head = await repo.head();
    const dest = suite.dest();
    await createApp(org, 'raw', {
      source: { type: 'Git', git: { repoURL: repo.url, path: 'deploy' } },
      destination: { namespace: dest },
      syncPolicy: { automated: true },
    });
    const app = await waitForApp(org, 'raw', 'Synced/Healthy', synced(head));
    await expectDeployed(dest, 'raw', 'web');
    const pods = await kube().list('v1', 'Pod', 'app=web', dest);
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      const conditions = (pod['status'] as { conditions?: { type: string; status: string }[] }).conditions ?? [];
      expect(conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    }
    expect(app.status?.observedRevision).toBe(head);
    expect(app.status?.resources?.map((r) => `${r.kind}/${r.name}/${r.healthStatus}`).sort()).toEqual([
      'ConfigMap/settings/Healthy',
      'Deployment/web/Healthy',
    ]);
    expect(app.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(app.status?.objectHash).toMatch(/^[0-9a-f]{64}$/);
    const ns = await getObject('v1', 'Namespace', undefined, dest);
    expect(ns?.metadata.labels?.['cd.svc.space/created-for-app']).toBe('raw');

    const metrics = await (await fetch(`http://127.0.0.1:${suite.op.ports.metrics}/metrics`)).text();
    expect(metrics).toContain(
      `svc_app_info{namespace="${org}",name="raw",sync_status="Synced",health_status="Healthy"} 1`,
    );
    expect(metrics).toMatch(/svc_reconcile_total\{result="success"\} \d+/);
    expect(metrics).toMatch(/svc_reconcile_duration_seconds_count\{result="success"\} \d+/);
    expect(metrics).toMatch(/svc_sync_operations_total|svc_operator_leader/);
    expect((await fetch(`http://127.0.0.1:${suite.op.ports.probes}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${suite.op.ports.probes}/readyz`)).status).toBe(200);
  });

  it('Kustomize: images, namePrefix and components are applied', async () => {
    const repo = await suite.git.createRepo(unique('kust'), {
      'app/kustomization.yaml': 'resources: [web.yaml]\n',
      'app/web.yaml': deploymentYaml('web', 1, 'nginx:1.0'),
      'app/extra/kustomization.yaml':
        'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [cm.yaml]\n',
      'app/extra/cm.yaml': configMapYaml('extra'),
    });
    const head = await repo.head();
    const dest = suite.dest();
    await createApp(org, 'kust', {
      source: {
        type: 'Git',
        git: {
          repoURL: repo.url,
          path: 'app',
          kustomize: { images: ['nginx=nginx:1.27'], namePrefix: 'k-', components: ['extra'] },
        },
      },
      destination: { namespace: dest },
      syncPolicy: { automated: true },
    });
    await waitForApp(org, 'kust', 'Synced/Healthy', synced(head));
    await expectDeployed(dest, 'kust', 'k-web');
    const dep = await getObject('apps/v1', 'Deployment', dest, 'k-web');
    const spec = dep?.['spec'] as { template: { spec: { containers: { image: string }[] } } };
    expect(spec.template.spec.containers[0]?.image).toBe('nginx:1.27');
    expect(await getObject('v1', 'ConfigMap', dest, 'k-extra')).toBeDefined();
  });

  it('Helm: helm template with release name, values file and inline values', async () => {
    const repo = await suite.git.createRepo(unique('helm'), {
      'chart/Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 0.1.0\n',
      'chart/values.yaml': 'replicas: 1\ncolor: blue\n',
      'chart/prod-values.yaml': 'replicas: 2\n',
      'chart/templates/deploy.yaml': deploymentYaml('{{ .Release.Name }}-web', 1).replace(
        'replicas: 1',
        'replicas: {{ .Values.replicas }}',
      ),
      'chart/templates/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\ndata:\n  color: {{ .Values.color | quote }}\n',
    });
    const head = await repo.head();
    const dest = suite.dest();
    await createApp(org, 'helmapp', {
      source: {
        type: 'Git',
        git: {
          repoURL: repo.url,
          path: 'chart',
          helm: { valuesFile: 'prod-values.yaml', inlineValues: { color: 'green' } },
        },
      },
      destination: { namespace: dest },
      syncPolicy: { automated: true },
    });
    await waitForApp(org, 'helmapp', 'Synced/Healthy', synced(head));
    await expectDeployed(dest, 'helmapp', 'helmapp-web');
    const dep = await getObject('apps/v1', 'Deployment', dest, 'helmapp-web');
    expect((dep?.['spec'] as { replicas: number } | undefined)?.replicas).toBe(2);
    expect((await getObject('v1', 'ConfigMap', dest, 'helmapp-cfg'))?.['data']).toEqual({ color: 'green' });
  });

  it('applies a CRD before the custom resources that need it, in one sync', async () => {
    const suffix = unique('w').replace(/-/g, '');
    const group = `${suffix}.example.test`;
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.${group}}
spec:
  group: ${group}
  names: {plural: widgets, singular: widget, kind: Widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;
    const repo = await suite.git.createRepo(unique('crd'), {
      'm/aa-widget.yaml': `apiVersion: ${group}/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n`,
      'm/zz-crd.yaml': crd,
    });
    const head = await repo.head();
    const dest = await suite.gitApp('crd', repo, { syncPolicy: { automated: true, prune: true } });
    await waitForApp(org, 'crd', 'Synced/Healthy', synced(head));
    const widget = await getObject(`${group}/v1`, 'Widget', dest, 'w1');
    expect(widget?.['spec']).toEqual({ size: 3 });
    await kube().delete({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: `widgets.${group}`,
    });
  });
});
