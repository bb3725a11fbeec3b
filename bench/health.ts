/**
 * health: what assessing health costs the apiserver. N objects of the kinds svc checks (Deployments, Services,
 * Ingresses, PVCs, HPAs, CronJobs, cert-manager Certificates, ExternalSecrets, Flux Kustomizations, Argo Rollouts),
 * carrying svc's labels, on a plane without controllers (so nothing else asks anything meanwhile); the operator's
 * live cache (src/operator/live) over them; then `rounds` full assessments of every object (built-in checks, plus a
 * CEL check on Certificates run in the sandbox). The apiserver's own request counts (`apiserver_request_total`)
 * before and after the rounds say how many requests health asked for: the watch cache answers every read, so the
 * figure is 0 (the metrics scrapes themselves aside). The same rounds through a reader that GETs each object are the
 * comparison: N requests per round.
 */
import { pino } from 'pino';
import { assessHealth, type LiveReader } from '../src/engine/health/assess.ts';
import { CelSandbox } from '../src/engine/health/cel/sandbox.ts';
import { CheckSet } from '../src/engine/health/custom.ts';
import { MANAGED_LABEL } from '../src/engine/labels.ts';
import { type AnyObject, connect } from '../src/kube/index.ts';
import { DestinationCache } from '../src/operator/live/destination.ts';
import { ecosystemCrdDirs } from '../test/harness/control-plane.ts';
import { apiserverRequestCounts, kubectl, startControlPlane, waitUntil } from '../test/harness/index.ts';
import { writeResult } from './lib/results.ts';

/** Parameters of one run. */
export interface HealthParams {
  /** Objects per kind. */
  perKind: number;
  rounds: number;
}

const NS = 'bench-health';
const labels = { [MANAGED_LABEL]: 'bench', 'cd.svc.space/app-namespace': 'org-bench' };

function objectsOf(i: number): AnyObject[] {
  const meta = (name: string) => ({ name: `${name}-${i}`, namespace: NS, labels });
  const pod = { metadata: { labels: { app: `w${i}` } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta('web'),
      spec: { selector: { matchLabels: { app: `w${i}` } }, template: pod },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: meta('web'), spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: meta('web'),
      spec: { ingressClassName: 'kwok', defaultBackend: { service: { name: `web-${i}`, port: { number: 80 } } } },
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: meta('data'),
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
    {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: meta('web'),
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `web-${i}` }, maxReplicas: 3 },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: meta('report'),
      spec: {
        schedule: '0 3 * * *',
        jobTemplate: {
          spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
        },
      },
    },
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: meta('web'),
      spec: { secretName: `tls-${i}`, dnsNames: ['a.example.test'], issuerRef: { name: 'ca' } },
    },
    {
      apiVersion: 'external-secrets.io/v1',
      kind: 'ExternalSecret',
      metadata: meta('db'),
      spec: {
        secretStoreRef: { name: 'vault', kind: 'SecretStore' },
        target: { name: `db-${i}` },
        data: [{ secretKey: 'k', remoteRef: { key: 'k' } }],
      },
    },
    {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: meta('apps'),
      spec: { interval: '1m', path: './apps', prune: true, sourceRef: { kind: 'GitRepository', name: 'repo' } },
    },
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: meta('web'),
      spec: {
        selector: { matchLabels: { app: `r${i}` } },
        template: { metadata: { labels: { app: `r${i}` } }, spec: pod.spec },
      },
    },
  ];
}

const total = (counts: Record<string, number>, before: Record<string, number>) => {
  const delta: Record<string, number> = {};
  for (const [k, v] of Object.entries(counts)) {
    const d = v - (before[k] ?? 0);
    if (d > 0) delta[k] = d;
  }
  return delta;
};

/** Runs the health benchmark and writes bench/results/health.json. */
export async function health(params: HealthParams, log: (line: string) => void): Promise<string> {
  // The ecosystem CRDs, and no controllers and no kwok: nothing but this benchmark talks to the apiserver.
  const plane = await startControlPlane({ name: 'bench-health', controllers: false, kwok: false });
  const sandbox = new CelSandbox();
  try {
    await kubectl(plane.kubeconfigPath, ['create', 'namespace', NS]);
    await kubectl(plane.kubeconfigPath, ['apply', '--server-side', ...ecosystemCrdDirs().flatMap((d) => ['-f', d])]);
    await kubectl(plane.kubeconfigPath, ['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
    const { client, objects: kube } = connect({ kubeconfigPath: plane.kubeconfigPath });
    const desired = Array.from({ length: params.perKind }, (_, i) => objectsOf(i)).flat();
    for (const o of desired) await kube.apply(o);
    log(`  ${desired.length} objects applied`);
    const cache = new DestinationCache({
      name: '',
      client: kube,
      onChange: () => undefined,
      logger: pino({ level: 'silent' }),
    });
    const checks = new CheckSet(
      sandbox,
      [],
      [
        {
          apiVersion: 'cert-manager.io/v1',
          kind: 'Certificate',
          current: "has(status.conditions) && status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
        },
      ],
    );
    // Warm: the first read of each kind starts its watch; wait until every kind answers from the cache.
    await assessHealth(cache, desired, true, checks);
    await waitUntil(
      async () =>
        desired.every(
          (o) =>
            cache.cached({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: NS }) !==
            undefined,
        ),
      {
        what: 'every kind cached',
        timeoutMs: 60_000,
      },
    );
    const rounds = async (reader: LiveReader) => {
      const before = await apiserverRequestCounts(client);
      const started = performance.now();
      let result: Awaited<ReturnType<typeof assessHealth>> | undefined;
      for (let r = 0; r < params.rounds; r++) result = await assessHealth(reader, desired, true, checks);
      const ms = performance.now() - started;
      const after = await apiserverRequestCounts(client);
      return {
        requests: total(after, before),
        msPerRound: Number((ms / params.rounds).toFixed(1)),
        health: result?.status,
      };
    };
    const cached = await rounds(cache);
    log(`  watch cache: ${JSON.stringify(cached.requests)} in ${params.rounds} rounds`);
    const byGet = await rounds({ get: (ref) => kube.get(ref) });
    log(`  GET per object: ${JSON.stringify(byGet.requests)} in ${params.rounds} rounds`);
    await cache.stop();
    await client.dropConnections();
    const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    return await writeResult('health', {
      params: { ...params, objects: desired.length, kinds: 10 },
      watchCache: { ...cached, total: sum(cached.requests) },
      getPerObject: { ...byGet, total: sum(byGet.requests) },
    });
  } finally {
    await sandbox.stop();
    await plane.stop();
  }
}
