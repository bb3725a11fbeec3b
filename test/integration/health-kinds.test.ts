/**
 * Health of every kind svc knows, each taken through its own status: Healthy, then Degraded or Progressing, then
 * Healthy again. The desired state changes in Git; the status is written by a controller — the real ones of the
 * plane (ReplicaSet, disruption, namespace, CRD naming, volume binder) or the kwok Stages that play cert-manager,
 * external-secrets, Argo Rollouts, Flux, Crossplane, the Prometheus Operator, the HPA and CronJob controllers, a
 * cloud load balancer and an ingress controller (test/harness/kwok-health.ts) — never by this test. The App's
 * healthReason and its HealthChanged Event name the object. All kinds run at once against one operator. (APIService:
 * health-apiservice.test.ts, on a plane of its own.)
 */
import { describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { waitUntil } from '../harness/index.ts';
import { KWOK_INGRESS_CLASS } from '../harness/kwok-health.ts';
import {
  deploymentYaml,
  eventsAbout,
  getObject,
  kube,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-health');
const { org } = suite;
const tag = unique('h');

interface Case {
  /** The kind as reasons name it (`group/Kind name`). */
  label: string;
  /** Manifests of the healthy state and of the unhealthy one. */
  ok: string;
  bad: string;
  /** The App's health in the unhealthy state, and a piece of its reason. */
  expect: 'Degraded' | 'Progressing';
  says: string;
  /** Extra manifests in both states. */
  with?: string;
  /** Manifests that heal it, when not `ok` again. */
  healed?: string;
}

const doc = (...parts: string[]) => parts.join('---\n');
const cert = (issuer: string) =>
  `apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web}\nspec: {secretName: web-tls, dnsNames: [web.example.test], issuerRef: {name: ${issuer}}}\n`;
const issuer = (spec: string) => `apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: ca}\nspec: ${spec}\n`;
const externalSecret = (store: string) =>
  `apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: db}\nspec: {secretStoreRef: {name: ${store}, kind: SecretStore}, target: {name: db}, data: [{secretKey: password, remoteRef: {key: db/password}}]}\n`;
const secretStore = (provider: string) =>
  `apiVersion: external-secrets.io/v1\nkind: SecretStore\nmetadata: {name: vault}\nspec: {provider: ${provider}}\n`;
const rollout = (imageTag: string) =>
  `apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: ro}}\n  template: {metadata: {labels: {app: ro}}, spec: {containers: [{name: c, image: "nginx:${imageTag}"}]}}\n  strategy: {canary: {steps: [{setWeight: 50}]}}\n`;
const kustomization = (path: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps}\nspec: {interval: 1m, path: ${path}, prune: true, sourceRef: {kind: GitRepository, name: repo}}\n`;
const helmRelease = (fail: boolean) =>
  `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: redis}\nspec: {interval: 1m, chart: {spec: {chart: redis, sourceRef: {kind: HelmRepository, name: bitnami}}}, values: {failInstall: ${fail}}}\n`;
const provider = (pkgTag: string) =>
  `apiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: provider-${tag}}\nspec: {package: "xpkg.example.test/provider-aws:${pkgTag}"}\n`;
const prometheus = (version: string) =>
  `apiVersion: monitoring.coreos.com/v1\nkind: Prometheus\nmetadata: {name: main}\nspec: {version: ${version}}\n`;
const hpa = (metric: string) =>
  `apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 1\n  maxReplicas: 3\n  metrics: [${metric}]\n`;
const cpu = '{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}';
const external = '{type: External, external: {metric: {name: queue_depth}, target: {type: Value, value: "10"}}}';
const cronJob = (image: string) =>
  `apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: report}\nspec:\n  schedule: "0 3 * * *"\n  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: "${image}"}]}}}}\n`;
const replicaSet = (replicas: number) =>
  `apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: workers}\nspec:\n  replicas: ${replicas}\n  selector: {matchLabels: {app: workers}}\n  template: {metadata: {labels: {app: workers}}, spec: {containers: [{name: c, image: "nginx:1.0", resources: {limits: {cpu: 100m, memory: 64Mi}}}]}}\n`;
const quota = 'apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: pods}\nspec: {hard: {pods: "2"}}\n';
const pdb =
  'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec: {minAvailable: 2, selector: {matchLabels: {app: web}}}\n';
const crd = (plural: string, shortName: string) =>
  `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ${plural}.${tag}.svc.test}\nspec:\n  group: ${tag}.svc.test\n  scope: Namespaced\n  names: {plural: ${plural}, singular: ${plural.slice(0, -1)}, kind: ${plural[0]?.toUpperCase()}${plural.slice(1, -1)}, shortNames: [${shortName}]}\n  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]\n`;
const service = (type: string) =>
  `apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {type: ${type}, selector: {app: web}, ports: [{port: 80}]}\n`;
const ingress = (cls: string) =>
  `apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  ${cls}rules: [{host: web.example.test, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}]\n`;
const pvc = `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {storageClassName: "", volumeName: pv-${tag}, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n`;
const pv = `apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-${tag}}\nspec: {storageClassName: "", capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/${tag}}}\n`;

const cases: Record<string, Case> = {
  certificate: {
    label: 'cert-manager.io/Certificate web',
    ok: cert('letsencrypt'),
    bad: cert('failing-issuer'),
    expect: 'Degraded',
    says: 'Failed: The certificate request has failed',
  },
  issuer: {
    label: 'cert-manager.io/Issuer ca',
    ok: issuer('{selfSigned: {}}'),
    bad: issuer('{ca: {secretName: ca-key-pair}}'),
    expect: 'Degraded',
    says: 'ErrGetKeyPair',
  },
  externalsecret: {
    label: 'external-secrets.io/ExternalSecret db',
    ok: externalSecret('vault'),
    bad: externalSecret('missing-store'),
    expect: 'Degraded',
    says: 'SecretSyncedError',
  },
  secretstore: {
    label: 'external-secrets.io/SecretStore vault',
    ok: secretStore('{fake: {data: []}}'),
    bad: secretStore('{vault: {server: "https://vault.example.test", auth: {tokenSecretRef: {name: t, key: k}}}}'),
    expect: 'Degraded',
    says: 'ValidationFailed',
  },
  rollout: {
    label: 'argoproj.io/Rollout web',
    ok: rollout('1.0'),
    bad: rollout('failing'),
    expect: 'Degraded',
    says: 'aborted: RolloutAborted',
  },
  kustomization: {
    label: 'kustomize.toolkit.fluxcd.io/Kustomization apps',
    ok: kustomization('./apps'),
    bad: kustomization('./broken'),
    expect: 'Degraded',
    says: 'BuildFailed',
  },
  helmrelease: {
    label: 'helm.toolkit.fluxcd.io/HelmRelease redis',
    ok: helmRelease(false),
    bad: helmRelease(true),
    expect: 'Degraded',
    says: 'InstallFailed',
  },
  provider: {
    label: `pkg.crossplane.io/Provider provider-${tag}`,
    ok: provider('v1.0.0'),
    bad: provider('failing'),
    expect: 'Degraded',
    says: 'UnhealthyPackageRevision',
  },
  prometheus: {
    label: 'monitoring.coreos.com/Prometheus main',
    ok: prometheus('v3.5.0'),
    bad: prometheus('v0.0.0'),
    expect: 'Degraded',
    says: 'NoPodReady',
  },
  hpa: {
    label: 'autoscaling/HorizontalPodAutoscaler web',
    ok: hpa(cpu),
    bad: hpa(external),
    expect: 'Degraded',
    says: 'FailedGetExternalMetric',
    with: deploymentYaml('web'),
  },
  cronjob: {
    label: 'batch/CronJob report',
    ok: cronJob('busybox:1.36'),
    bad: cronJob('busybox:failing'),
    expect: 'Degraded',
    says: 'did not succeed',
  },
  replicaset: {
    label: 'apps/ReplicaSet workers',
    ok: replicaSet(1),
    bad: replicaSet(4),
    expect: 'Degraded',
    says: 'exceeded quota',
    with: quota,
  },
  pdb: {
    label: 'policy/PodDisruptionBudget web',
    ok: doc(deploymentYaml('web', 2), pdb),
    bad: doc(deploymentYaml('web', 1), pdb),
    expect: 'Degraded',
    says: '1 healthy pods, 2 needed',
  },
  crd: {
    label: `apiextensions.k8s.io/CustomResourceDefinition gadgets.${tag}.svc.test`,
    ok: doc(crd('widgets', 'wd'), crd('gadgets', 'gd')),
    bad: doc(crd('widgets', 'wd'), crd('gadgets', 'widgets')),
    expect: 'Degraded',
    says: 'ShortNamesConflict',
    // The naming controller keeps a refused name refused until the CRD holding it is gone (pruned here).
    healed: crd('gadgets', 'widgets'),
  },
  service: {
    label: 'Service web',
    ok: service('ClusterIP'),
    bad: service('LoadBalancer'),
    expect: 'Progressing',
    says: 'waiting for a load balancer address',
  },
  ingress: {
    label: 'networking.k8s.io/Ingress web',
    ok: ingress(''),
    bad: ingress(`ingressClassName: ${KWOK_INGRESS_CLASS}\n  `),
    expect: 'Progressing',
    says: 'waiting for an address',
  },
  pvc: {
    label: 'PersistentVolumeClaim data',
    ok: doc(pvc, pv),
    bad: pvc,
    expect: 'Progressing',
    says: 'waiting for a volume',
  },
};

/** Health changes recorded as Events on the App. */
async function healthChanges(name: string): Promise<string[]> {
  return (await eventsAbout(org, name)).filter((e) => e.reason === 'HealthChanged').map((e) => e.message);
}

/** Waits for a HealthChanged Event of the App that `matches` (it is recorded just after the status it follows). */
function healthChanged(name: string, what: string, matches: (message: string) => boolean): Promise<string> {
  return waitUntil(async () => (await healthChanges(name)).find(matches), {
    what: `HealthChanged ${what}`,
    timeoutMs: 30_000,
  });
}

const settled = (revision: string, health: string) => (a: AppResource) =>
  a.status?.revision === revision && a.status.syncStatus === 'Synced' && a.status.healthStatus === health;

/** Takes the object of case `name` through its own status: Healthy, then `c.expect`, then Healthy again. */
async function throughItsStatus(name: string, c: Case): Promise<void> {
  // The Service, Ingress and PVC go the other way: Healthy, Progressing until their controller answers, Healthy.
  const transient = c.expect === 'Progressing' && name !== 'pvc';
  const files = (body: string) => ({ 'm/objects.yaml': c.with ? doc(c.with, body) : body });
  const repo = await suite.git.createRepo(unique(name), files(name === 'pvc' ? c.bad : c.ok));
  await suite.gitApp(name, repo, { syncPolicy: { automated: true, prune: true } });
  if (name === 'pvc') {
    // A claim of a volume that does not exist yet waits (the real binder), then binds once the volume is there.
    const first = await waitForApp(org, name, 'Progressing', settled(await repo.head(), 'Progressing'));
    expect(first.status?.healthReason).toBe(`${c.label}: ${'Pending: waiting for a volume'}`);
    const bound = await repo.commit(files(c.ok), 'add the volume');
    await waitForApp(org, name, 'Healthy once bound', settled(bound, 'Healthy'), 90_000);
    await healthChanged(name, 'to Healthy', (m) => m === 'health Progressing → Healthy');
    return;
  }
  await waitForApp(org, name, 'Healthy', settled(await repo.head(), 'Healthy'), 90_000);
  const bad = await repo.commit(files(c.bad), `make ${name} ${c.expect}`);
  if (transient) {
    await waitForApp(org, name, 'Healthy again', settled(bad, 'Healthy'), 90_000);
    await healthChanged(
      name,
      'into Progressing',
      (m) => m.startsWith('health Healthy → Progressing') && m.includes(c.label),
    );
    await healthChanged(name, 'back to Healthy', (m) => m === 'health Progressing → Healthy');
    return;
  }
  const unhealthy = await waitForApp(org, name, c.expect, settled(bad, c.expect), 90_000);
  expect(unhealthy.status?.healthReason).toContain(`${c.label}: `);
  expect(unhealthy.status?.healthReason).toContain(c.says);
  // Healthy → Degraded, or through Progressing while the controller had not yet seen the new generation.
  await healthChanged(name, `into ${c.expect}`, (m) => m.includes(`→ ${c.expect}: ${c.label}`));
  const fixed = await repo.commit(files(c.healed ?? c.ok), `heal ${name}`);
  await waitForApp(org, name, 'Healthy again', settled(fixed, 'Healthy'), 90_000);
}

describe.concurrent('health of every kind, through its own status', () => {
  for (const [name, c] of Object.entries(cases)) {
    it(`${c.label}: Healthy → ${c.expect} → Healthy`, () => throughItsStatus(name, c));
  }

  it('Namespace: Healthy → Progressing while Terminating → Healthy once made again', async () => {
    const ns = `term-${tag}`;
    const label = `Namespace ${ns}`;
    const held = (finalizer: boolean) =>
      `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${ns}${finalizer ? ', finalizers: [svc.test/hold]' : ''}}\n`;
    const repo = await suite.git.createRepo(unique('namespace'), { 'm/objects.yaml': held(true) });
    await suite.gitApp('namespace', repo, { syncPolicy: { automated: true, prune: true } });
    await waitForApp(org, 'namespace', 'Healthy', settled(await repo.head(), 'Healthy'), 90_000);
    // Deleted behind svc's back: it stays Terminating (the namespace controller's phase) while its finalizer stays.
    await kube().delete({ apiVersion: 'v1', kind: 'Namespace', name: ns });
    const terminating = await waitForApp(
      org,
      'namespace',
      'Progressing',
      (a) => a.status?.healthStatus === 'Progressing',
    );
    expect(terminating.status?.healthReason).toContain(`${label}: terminating`);
    // The finalizer released by a commit: the namespace goes; the next commit makes it again.
    const release = await repo.commit({ 'm/objects.yaml': held(false) }, 'release the finalizer');
    await waitForApp(org, 'namespace', 'the release applied', (a) => a.status?.revision === release, 90_000);
    await waitUntil(async () => (await getObject('v1', 'Namespace', undefined, ns)) === undefined, {
      what: 'namespace gone',
      timeoutMs: 90_000,
    });
    const again = await repo.commit({ 'm/objects.yaml': `${held(false)}# again\n` }, 'make it again');
    await waitForApp(org, 'namespace', 'Healthy again', settled(again, 'Healthy'), 90_000);
    expect((await healthChanges('namespace')).some((m) => m.includes(`→ Progressing: ${label}: terminating`))).toBe(
      true,
    );
  });
});
