import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { KubeClient } from '../../src/kube/index.ts';
import { createPlaneCerts, readPem } from './certs.ts';
import { type KubeCredentials, kubeClient, kubeconfigYaml, kubectl } from './kube.ts';
import { healthStagesYaml } from './kwok-health.ts';
import { registerSecret } from './leak-registry.ts';
import { binary, type Component, componentDir, repoRoot } from './paths.ts';
import { freePort } from './ports.ts';
import { type ManagedProcess, makeTempDir, removeTempDir, startProcess, waitUntil } from './process.ts';

/** Options for {@link startControlPlane}. */
export interface ControlPlaneOptions {
  /** Run kwok with one fake node so Pods get scheduled and become Ready (default true). */
  kwok?: boolean;
  /** Run kube-controller-manager and kube-scheduler (default true; kwok needs them for Deployments). */
  controllers?: boolean;
  /** Label used in temp dir and kubeconfig names (default `plane`). */
  name?: string;
  /** Apply the CRDs in deploy/crds/ (default true). */
  crds?: boolean;
  /**
   * Also install the ecosystem CRDs (cert-manager, Argo Rollouts, Argo CD, Flux, Crossplane, Prometheus Operator) and
   * let kwok play their controllers (none for Argo CD's) and those of HPAs, CronJobs, LoadBalancer Services and Ingresses (./kwok-health.ts), with
   * kube-controller-manager's own HPA and CronJob controllers off (default false; the run's management plane has it).
   * Needs `crds` and `kwok`.
   */
  ecosystem?: boolean;
  /**
   * Benchmarks only (default off): raise the client rates of controller-manager and scheduler, the apiserver's
   * in-flight limits and the fake node's pod capacity, so the plane is not what a benchmark measures.
   */
  throughput?: ThroughputOptions;
}

/** Limits raised by {@link ControlPlaneOptions.throughput}. kwok needs none: it runs without a client rate limit. */
export interface ThroughputOptions {
  /** `--kube-api-qps` of kube-controller-manager and kube-scheduler (defaults 20 and 50). */
  qps: number;
  /** `--kube-api-burst` of both (defaults 30 and 100). */
  burst: number;
  /** apiserver `--max-requests-inflight` (default 400); `--max-mutating-requests-inflight` gets half (default 200). */
  maxRequestsInflight: number;
  /** Pod capacity of the fake node (default 110). */
  nodePods: number;
}

/** A running control plane. */
export interface ControlPlane {
  /** Admin kubeconfig (client certificate `O=system:masters`), as a file. */
  kubeconfigPath: string;
  /** The same kubeconfig as YAML text. */
  kubeconfigYaml: string;
  /** Kubeconfig authenticating with the static bearer {@link token} (also `system:masters`), as a file. */
  tokenKubeconfigPath: string;
  /** The token kubeconfig as YAML text. */
  tokenKubeconfigYaml: string;
  /** `https://127.0.0.1:<port>`. */
  serverURL: string;
  /** CA that signed the serving certificate (PEM). */
  caPEM: string;
  /** Static bearer token of user `svc-test-token` in group `system:masters`. */
  token: string;
  /** Name of the fake node, when kwok runs. */
  nodeName: string | undefined;
  /** Directory holding certificates, data and logs (removed by stop). */
  dir: string;
  /** Admin credentials as PEM text, for clients built in code. */
  admin: KubeCredentials;
  /**
   * Stops the apiserver alone (clients get "connection refused"; etcd and the rest keep running) until `up()`, which
   * starts it again on the same port with the same data and resolves once it is ready. Both are no-ops when already so.
   */
  down(): Promise<void>;
  up(): Promise<void>;
  /**
   * Freezes etcd (SIGSTOP to its process group): the apiserver keeps listening but every request that reaches storage
   * hangs, as with a stalled disk or a partitioned etcd. `resumeEtcd()` (SIGCONT) lets it go on where it stopped.
   * Both are no-ops when already so; stop() resumes a paused etcd first.
   */
  pauseEtcd(): void;
  resumeEtcd(): void;
  /** Stops every process and removes the directory. */
  stop(): Promise<void>;
}

const fakeNodeName = 'kwok-node-0';

/** Stage files from the kwok module that make nodes Ready, keep their leases, and run Pods to Ready/Completed. */
const kwokStages = [
  'node/fast/node-initialize.yaml',
  'node/heartbeat-with-lease/node-heartbeat-with-lease.yaml',
  'pod/fast/pod-ready.yaml',
  'pod/fast/pod-complete.yaml',
  'pod/fast/pod-delete.yaml',
];

/**
 * Starts etcd and kube-apiserver on free loopback ports, then (by default) kube-controller-manager, kube-scheduler
 * and kwok with one fake node, and applies the CRDs in deploy/crds/. Resolves when the apiserver is ready, the
 * fake node is Ready and the `default` ServiceAccount exists, so tests can create workloads at once.
 * Binaries come from the cache filled by scripts/build-binaries.sh.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  // Ports are picked free and then handed to the processes; another process can take one in between. Retry then.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt >= 3 || !/address already in use/i.test(String(error))) throw error;
    }
  }
}

/** SIGCONT to a process group that may be gone already. */
function continueGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGCONT');
  } catch {
    // Already exited: nothing to resume.
  }
}

async function startOnce(options: ControlPlaneOptions): Promise<ControlPlane> {
  const name = options.name ?? 'plane';
  const withControllers = options.controllers ?? true;
  const withKwok = options.kwok ?? true;
  const withCrds = options.crds ?? true;
  const ecosystem = options.ecosystem === true && withCrds && withKwok;
  const dir = makeTempDir(name);
  const processes: ManagedProcess[] = [];
  let stopped: Promise<void> | undefined;
  let client: KubeClient | undefined;
  let etcdPaused = false;
  const stop = () => {
    stopped ??= (async () => {
      // A stopped process cannot act on SIGTERM: let a paused etcd run again so it can shut down.
      if (etcdPaused) for (const proc of processes) continueGroup(proc.pid);
      // Reverse start order: clients first, etcd last, so nothing logs errors about a vanished apiserver for long.
      for (const proc of [...processes].reverse()) await proc.stop();
      removeTempDir(dir);
    })();
    return stopped;
  };
  try {
    const logDir = join(dir, 'logs');
    await mkdir(logDir);
    const certs = await createPlaneCerts(dir);
    const token = randomBytes(24).toString('hex');
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(tokenFile, `${token},svc-test-token,svc-test-token,"system:masters"\n`, { mode: 0o600 });
    const [etcdPort, etcdPeerPort, apiPort] = await Promise.all([freePort(), freePort(), freePort()]);

    const etcdURL = `http://127.0.0.1:${etcdPort}`;
    const etcd = startProcess(
      'etcd',
      binary('etcd'),
      [
        `--data-dir=${join(dir, 'etcd')}`,
        `--name=${name}`,
        `--listen-client-urls=${etcdURL}`,
        `--advertise-client-urls=${etcdURL}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
        `--initial-cluster=${name}=http://127.0.0.1:${etcdPeerPort}`,
        // Test data is disposable: skipping fsync makes every write much cheaper.
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      { logDir },
    );
    processes.push(etcd);
    await waitUntil(
      async () => {
        const res = await fetch(`${etcdURL}/health`);
        return res.ok && ((await res.json()) as { health?: string }).health === 'true';
      },
      { what: 'etcd health', process: etcd, timeoutMs: 30_000 },
    );

    const serverURL = `https://127.0.0.1:${apiPort}`;
    const apiserverArgs = [
      `--etcd-servers=${etcdURL}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${join(dir, 'apiserver-certs')}`,
      `--tls-cert-file=${certs.serving.cert}`,
      `--tls-private-key-file=${certs.serving.key}`,
      `--client-ca-file=${certs.ca.cert}`,
      `--token-auth-file=${tokenFile}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${certs.serviceAccount.pub}`,
      `--service-account-signing-key-file=${certs.serviceAccount.key}`,
      '--authorization-mode=RBAC',
      '--service-cluster-ip-range=10.96.0.0/16',
      '--allow-privileged=true',
      // A loopback advertise address cannot be written to the kubernetes Endpoints; nothing here needs them.
      '--endpoint-reconciler-type=none',
      // Cheaper on 2 cores; flow control matters nothing for tests.
      '--enable-priority-and-fairness=false',
      // Benchmarks may take a CPU profile of the apiserver (GET /debug/pprof/profile, admin only); tests need none.
      `--profiling=${options.throughput ? 'true' : 'false'}`,
      // The fake node's "kubelet" (kwok's server, for Pod logs) is reached by its InternalIP, 127.0.0.1.
      '--kubelet-preferred-address-types=InternalIP',
      ...(options.throughput
        ? [
            `--max-requests-inflight=${options.throughput.maxRequestsInflight}`,
            `--max-mutating-requests-inflight=${Math.ceil(options.throughput.maxRequestsInflight / 2)}`,
          ]
        : []),
      '--v=0',
    ];
    const startApiserver = () =>
      startProcess('kube-apiserver', binary('kubernetes', 'kube-apiserver'), apiserverArgs, { logDir });
    let apiserver = startApiserver();
    processes.push(apiserver);

    const caPEM = await readPem(certs.ca.cert);
    const admin: KubeCredentials = {
      serverURL,
      caPEM,
      clientCertPEM: await readPem(certs.admin.cert),
      clientKeyPEM: await readPem(certs.admin.key),
    };
    const adminYaml = kubeconfigYaml(`svc-${name}`, admin);
    const tokenYaml = kubeconfigYaml(`svc-${name}-token`, { serverURL, caPEM, token });
    const kubeconfigPath = join(dir, 'admin.kubeconfig');
    const tokenKubeconfigPath = join(dir, 'token.kubeconfig');
    await writeFile(kubeconfigPath, adminYaml, { mode: 0o600 });
    await writeFile(tokenKubeconfigPath, tokenYaml, { mode: 0o600 });

    // The harness's own calls during start-up; its connections are closed once the plane is ready.
    const api = kubeClient(admin);
    client = api;
    await waitUntil(async () => (await api.text('/readyz')) !== undefined, {
      what: 'kube-apiserver /readyz',
      process: apiserver,
      timeoutMs: 90_000,
      intervalMs: 200,
    });

    const rates = options.throughput
      ? [`--kube-api-qps=${options.throughput.qps}`, `--kube-api-burst=${options.throughput.burst}`]
      : [];
    if (withControllers) {
      processes.push(
        startProcess(
          'kube-controller-manager',
          binary('kubernetes', 'kube-controller-manager'),
          [
            `--kubeconfig=${kubeconfigPath}`,
            '--leader-elect=false',
            // No HTTPS endpoint: it would need a fixed port per plane and nothing here scrapes it.
            '--secure-port=0',
            `--service-account-private-key-file=${certs.serviceAccount.key}`,
            `--root-ca-file=${certs.ca.cert}`,
            `--cluster-signing-cert-file=${certs.ca.cert}`,
            `--cluster-signing-key-file=${certs.ca.key}`,
            '--use-service-account-credentials=false',
            // With the ecosystem, kwok plays the HPA and CronJob controllers (./kwok-health.ts).
            ecosystem ? '--controllers=*,-horizontal-pod-autoscaler-controller,-cronjob-controller' : '--controllers=*',
            ...rates,
            '--v=0',
          ],
          { logDir },
        ),
        startProcess(
          'kube-scheduler',
          binary('kubernetes', 'kube-scheduler'),
          [`--kubeconfig=${kubeconfigPath}`, '--leader-elect=false', '--secure-port=0', ...rates, '--v=0'],
          { logDir },
        ),
      );
    }

    // CRDs before kwok: its stage controllers look their kinds up (and their OpenAPI schema) when it starts.
    if (withCrds) await applyCrds(kubeconfigPath, ecosystem);
    if (ecosystem) await waitForOpenApi(api, STAGED_GROUP_VERSIONS);

    let nodeName: string | undefined;
    if (withKwok) {
      const stages = join(componentDir('kwok'), 'stages');
      // kwok also plays the node's kubelet server, so `kubectl logs` (and svc's log route) work: every container
      // of every Pod logs the lines of pod.log, then follows it.
      const kubeletPort = await freePort();
      const podLog = join(dir, 'pod.log');
      await writeFile(podLog, FAKE_POD_LOG);
      const logsConfig = join(dir, 'kwok-logs.yaml');
      await writeFile(logsConfig, kwokLogsConfig(podLog));
      const healthConfig = join(dir, 'kwok-health.yaml');
      if (ecosystem) await writeFile(healthConfig, healthStagesYaml());
      processes.push(
        startProcess(
          'kwok',
          binary('kwok'),
          [
            `--kubeconfig=${kubeconfigPath}`,
            '--manage-all-nodes=false',
            '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
            '--node-lease-duration-seconds=40',
            '--node-ip=127.0.0.1',
            `--node-port=${kubeletPort}`,
            `--server-address=127.0.0.1:${kubeletPort}`,
            `--tls-cert-file=${certs.serving.cert}`,
            `--tls-private-key-file=${certs.serving.key}`,
            `--config=${logsConfig}`,
            // The default pod CIDR (/24) runs out of addresses beyond 254 pods.
            ...(options.throughput ? ['--cidr=10.0.0.0/16'] : []),
            ...kwokStages.map((stage) => `--config=${join(stages, stage)}`),
            ...(ecosystem ? [`--config=${healthConfig}`] : []),
          ],
          // kwok would otherwise read ~/.kwok/kwok.yaml of whoever runs the tests.
          { logDir, env: { ...process.env, HOME: dir } },
        ),
      );
      await createFakeNode(api, options.throughput?.nodePods ?? 110);
      nodeName = fakeNodeName;
    }

    if (withKwok) {
      await waitUntil(
        async () => {
          const node = await api.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
            `/api/v1/nodes/${fakeNodeName}`,
          );
          return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
        },
        { what: 'fake node Ready', timeoutMs: 60_000, intervalMs: 200 },
      );
    }
    if (withControllers) {
      await waitUntil(
        async () => (await api.request('/api/v1/namespaces/default/serviceaccounts/default')) !== undefined,
        { what: 'default ServiceAccount (controller-manager running)', timeoutMs: 60_000, intervalMs: 200 },
      );
    }

    await api.dropConnections();
    let apiserverDown = false;
    const signalEtcd = (signal: NodeJS.Signals) => process.kill(-etcd.pid, signal);
    return {
      pauseEtcd() {
        if (etcdPaused) return;
        signalEtcd('SIGSTOP');
        etcdPaused = true;
      },
      resumeEtcd() {
        if (!etcdPaused) return;
        signalEtcd('SIGCONT');
        etcdPaused = false;
      },
      async down() {
        if (apiserverDown) return;
        apiserverDown = true;
        await apiserver.stop();
      },
      async up() {
        if (!apiserverDown) return;
        const index = processes.indexOf(apiserver);
        apiserver = startApiserver();
        processes[index] = apiserver;
        const probe = kubeClient(admin);
        try {
          await waitUntil(async () => (await probe.text('/readyz')) !== undefined, {
            what: 'kube-apiserver /readyz after up()',
            process: apiserver,
            timeoutMs: 90_000,
            intervalMs: 200,
          });
        } finally {
          await probe.dropConnections();
        }
        apiserverDown = false;
      },
      kubeconfigPath,
      kubeconfigYaml: adminYaml,
      tokenKubeconfigPath,
      tokenKubeconfigYaml: tokenYaml,
      serverURL,
      caPEM,
      token,
      nodeName,
      dir,
      admin,
      stop,
    };
  } catch (error) {
    await client?.dropConnections();
    await stop();
    throw error;
  }
}

/** What every container of a fake Pod logs (then follows the file), in the CRI log format kwok serves from. */
export const FAKE_POD_LOG =
  '2026-01-01T00:00:00.000000000Z stdout F svc fake pod: started\n2026-01-01T00:00:01.000000000Z stdout F svc fake pod: serving on :80\n';

function kwokLogsConfig(logFile: string): string {
  return `apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: every-pod
spec:
  selector: {}
  logs:
    - containers: []
      logsFile: ${logFile}
      follow: true
`;
}

async function createFakeNode(client: KubeClient, pods: number): Promise<void> {
  const resources = { cpu: '32', memory: '256Gi', pods: String(pods) };
  const node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: fakeNodeName,
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        type: 'kwok',
        'kubernetes.io/hostname': fakeNodeName,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node-role.kubernetes.io/agent': '',
      },
    },
    status: { allocatable: resources, capacity: resources },
  };
  await client.request('/api/v1/nodes', { method: 'POST', body: node });
}

/** The CRDs of this repository (deploy/crds/*.yaml), applied to every management plane. */
export const crdDir: string = join(repoRoot, 'deploy', 'crds');

/**
 * The external-secrets CRDs (ExternalSecret, SecretStore, ClusterSecretStore; scripts/build-binaries.sh eso-crds),
 * applied beside svc's own: env.store entries of an eso store render ExternalSecret objects, which a plane must
 * accept. No ESO controller runs.
 */
export function externalSecretsCrdDir(): string {
  return dirname(binary('eso-crds', 'external-secrets.io_externalsecrets.yaml'));
}

/** The CRDs of the ecosystem kinds svc assesses (scripts/build-binaries.sh `*-crds`), beside external-secrets'. */
export function ecosystemCrdDirs(): string[] {
  const first: Record<string, string> = {
    'cert-manager-crds': 'cert-manager.io_certificates.yaml',
    'argo-rollouts-crds': 'rollout-crd.yaml',
    'argocd-crds': 'application-crd.yaml',
    'flux-crds': 'kustomize-controller-crds.yaml',
    'crossplane-crds': 'pkg.crossplane.io_providers.yaml',
    'prometheus-operator-crds': 'monitoring.coreos.com_prometheuses.yaml',
  };
  return Object.entries(first).map(([component, file]) => dirname(binary(component as Component, file)));
}

/** The group/versions whose kinds kwok plays a controller of (./kwok-health.ts). */
const STAGED_GROUP_VERSIONS = [
  'cert-manager.io/v1',
  'external-secrets.io/v1',
  'argoproj.io/v1alpha1',
  'kustomize.toolkit.fluxcd.io/v1',
  'helm.toolkit.fluxcd.io/v2',
  'pkg.crossplane.io/v1',
  'monitoring.coreos.com/v1',
];

/** Waits until the apiserver publishes the OpenAPI v3 document of each group/version (it lags a CRD by seconds). */
async function waitForOpenApi(api: KubeClient, groupVersions: string[]): Promise<void> {
  await waitUntil(
    async () => {
      const doc = await api.request<{ paths?: Record<string, unknown> }>('/openapi/v3');
      return groupVersions.every((gv) => doc.paths?.[`apis/${gv}`] !== undefined);
    },
    { what: 'OpenAPI v3 of the ecosystem CRDs', timeoutMs: 60_000, intervalMs: 250 },
  );
}

async function applyCrds(kubeconfigPath: string, ecosystem: boolean): Promise<void> {
  const dirs = [crdDir, externalSecretsCrdDir(), ...(ecosystem ? ecosystemCrdDirs() : [])];
  await kubectl(kubeconfigPath, ['apply', '--server-side', ...dirs.flatMap((d) => ['-f', d])]);
  // `kubectl wait` errors instead of waiting while a just-created CRD has no status yet, so retry it.
  await waitUntil(
    () =>
      kubectl(kubeconfigPath, ['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']).then(
        () => true,
      ),
    { what: 'CRDs Established', timeoutMs: 90_000 },
  );
}

/** Options for {@link serviceAccountKubeconfig}. */
export interface ServiceAccountKubeconfigOptions {
  namespace?: string;
  /** ServiceAccount name (created if missing). */
  name: string;
  /**
   * ClusterRole bound cluster-wide to the account (e.g. `cluster-admin`, `system:aggregate-to-view`); none when
   * omitted. The aggregated roles `view`/`edit`/`admin` are filled by the controller-manager: empty without it.
   */
  clusterRole?: string;
  /** Token lifetime (default `1h`). */
  duration?: string;
}

/**
 * A kubeconfig (YAML) for a ServiceAccount of `plane`, authenticating with a bound token minted by the TokenRequest
 * API: a credential with exactly the permissions granted here, to test what svc does with limited rights.
 */
export async function serviceAccountKubeconfig(
  plane: ControlPlane,
  options: ServiceAccountKubeconfigOptions,
): Promise<string> {
  const token = await serviceAccountToken(plane.kubeconfigPath, options);
  return kubeconfigYaml(`sa-${options.name}`, { serverURL: plane.serverURL, caPEM: plane.caPEM, token });
}

/**
 * A bound token of a ServiceAccount (created if missing, with `clusterRole` bound when given), minted by the
 * TokenRequest API through the admin kubeconfig at `kubeconfigPath` (e.g. the run's `inject('mgmtKubeconfig')`).
 */
export async function serviceAccountToken(
  kubeconfigPath: string,
  options: ServiceAccountKubeconfigOptions,
): Promise<string> {
  const namespace = options.namespace ?? 'default';
  const kc = kubeconfigPath;
  const account = `${namespace}:${options.name}`;
  await kubectl(kc, ['create', 'namespace', namespace, '--dry-run=client', '-o', 'yaml']).then(({ stdout }) =>
    applyYaml(kc, stdout),
  );
  await kubectl(kc, ['-n', namespace, 'create', 'serviceaccount', options.name, '--dry-run=client', '-o', 'yaml']).then(
    ({ stdout }) => applyYaml(kc, stdout),
  );
  if (options.clusterRole) {
    const binding = `${options.name}-${namespace}-${options.clusterRole}`.replace(/[^a-z0-9-]/g, '-');
    const { stdout } = await kubectl(kc, [
      'create',
      'clusterrolebinding',
      binding,
      `--clusterrole=${options.clusterRole}`,
      `--serviceaccount=${account}`,
      '--dry-run=client',
      '-o',
      'yaml',
    ]);
    await applyYaml(kc, stdout);
  }
  const { stdout: token } = await kubectl(kc, [
    '-n',
    namespace,
    'create',
    'token',
    options.name,
    `--duration=${options.duration ?? '1h'}`,
  ]);
  registerSecret(`ServiceAccount ${account} token`, token.trim());
  return token.trim();
}

async function applyYaml(kubeconfigPath: string, yamlText: string): Promise<void> {
  await kubectl(kubeconfigPath, ['apply', '--server-side', '-f', '-'], { input: yamlText });
}
