/**
 * Shared set-up of the operator integration tests: an in-process operator (startOperator) against the harness's
 * management control plane, watching one fresh org namespace, with short periods so tests do not wait 30–60 s.
 * `useOperatorSuite` wires the usual fixture (git server, org namespace, operator, clean-up) into a test file.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, inject } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { APP_API_VERSION, APP_KIND, type AppResource, type AppSpec } from '../../src/core/app-schema.ts';
import { type AnyObject, connect, type ObjectClient } from '../../src/kube/index.ts';
import { REDACTED_PATHS } from '../../src/log.ts';
import { type OperatorOptions, type RunningOperator, startOperator } from '../../src/operator/index.ts';
import { type GitServer, LeakScanLog, startGitServer, waitUntil } from '../harness/index.ts';

export const kube = (): ObjectClient => connect({ kubeconfigPath: inject('mgmtKubeconfig') }).objects;

/** A unique DNS label with a prefix. */
export const unique = (prefix: string): string => `${prefix}-${randomBytes(3).toString('hex')}`;

export interface TestOperator extends RunningOperator {
  dataDir: string;
}

/**
 * Starts an operator watching `namespace`, listeners on port 0, sync period 2 s, error requeue 3 s; `env` adds
 * settings (e.g. SVC_SERVER_URL); `logLines` collects its log lines (info level) instead of discarding them.
 */
export async function startTestOperator(
  namespace: string,
  options: OperatorOptions & {
    leaderElect?: boolean;
    env?: Record<string, string>;
    /** Collects every log line (trace level, redacted as in production) here instead of discarding them. */
    logLines?: string[];
  } = {},
): Promise<TestOperator> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-op-test-'));
  const config = loadConfig({
    env: { SVC_MGMT_KUBECONFIG: inject('mgmtKubeconfig'), SVC_DATA_DIR: dataDir, ...options.env },
    flags: {
      syncPeriod: '2s',
      webhookBindAddress: '127.0.0.1:0',
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      leaderElect: options.leaderElect ?? false,
    },
    devSecrets: { authSecret: 'x'.repeat(32), credentialsKey: Buffer.alloc(32, 1).toString('base64') },
    cwd: dataDir,
  });
  const lines = options.logLines;
  // Every operator logs (info, as in production; trace when the test collects lines) into the run's leak check;
  // SVC_TEST_LOG=<level> also prints them.
  const log = new LeakScanLog('in-process operator log');
  const printLevel = process.env['SVC_TEST_LOG'];
  const logger = pino(
    { level: lines ? 'trace' : (printLevel ?? 'info'), redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    {
      write: (l: string) => {
        lines?.push(l);
        log.write(l);
        if (printLevel) process.stdout.write(l);
      },
    },
  );
  const op = await startOperator(config, logger, {
    ...options,
    watchNamespace: namespace,
    tuning: { errorRequeueMs: 3000, ...options.tuning },
  });
  return {
    ...op,
    dataDir,
    stop: async () => {
      await op.stop();
      log.flush();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The fixture of one operator test file; `git` and `op` exist from its beforeAll hook on. */
export interface OperatorSuite {
  /** The org namespace the file's Apps live in (and the operator watches). */
  readonly org: string;
  readonly git: GitServer;
  /** The operator started for the file (absent when the suite was asked for none). */
  readonly op: TestOperator;
  /** A fresh destination namespace name, deleted with the org namespace after the file's tests. */
  dest(): string;
  /**
   * Creates the App `name` with a Git source (`repo`, path `m`) deploying into a fresh destination namespace (see
   * `dest`), the rest of its spec from `spec`; returns the destination namespace.
   */
  gitApp(
    name: string,
    repo: { url: string },
    spec?: Omit<AppSpec, 'source' | 'destination'>,
    annotations?: Record<string, string>,
  ): Promise<string>;
}

/**
 * Registers the hooks every operator test file shares: before all tests a git server, the org namespace
 * `unique(orgPrefix)` and (unless `operator` is false) an operator watching it with `operator` options; after all
 * tests the operator and git server stop and the org and destination namespaces are deleted. Call at file level.
 */
export function useOperatorSuite(
  orgPrefix: string,
  operator: (OperatorOptions & { leaderElect?: boolean; logLines?: string[] }) | false = {},
): OperatorSuite {
  const org = unique(orgPrefix);
  const dests: string[] = [];
  let git: GitServer | undefined;
  let op: TestOperator | undefined;
  const dest = (): string => {
    const name = unique('dest');
    dests.push(name);
    return name;
  };

  beforeAll(async () => {
    git = await startGitServer();
    await createNamespace(org);
    if (operator) op = await startTestOperator(org, operator);
  });

  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await deleteNamespaces(org, ...dests);
  });

  return {
    org,
    get git() {
      if (!git) throw new Error('the git server starts in beforeAll: use it inside hooks and tests');
      return git;
    },
    get op() {
      if (!op) throw new Error('no operator: it starts in beforeAll unless the suite was asked for none');
      return op;
    },
    dest,
    async gitApp(name, repo, spec = {}, annotations) {
      const namespace = dest();
      await createApp(
        org,
        name,
        { source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } }, destination: { namespace }, ...spec },
        annotations,
      );
      return namespace;
    },
  };
}

/** Creates a namespace (the org namespace of the Apps, or a destination). */
export async function createNamespace(name: string): Promise<void> {
  await kube().apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** Deletes namespaces, ignoring those already gone. */
export async function deleteNamespaces(...names: string[]): Promise<void> {
  const k = kube();
  for (const name of names) await k.delete({ apiVersion: 'v1', kind: 'Namespace', name }).catch(() => undefined);
}

/** Creates an App resource. */
export async function createApp(namespace: string, name: string, spec: AppSpec, annotations?: Record<string, string>) {
  const k = kube();
  const path = await k.path({ apiVersion: APP_API_VERSION, kind: APP_KIND, namespace });
  return k.client.request<AppResource>(path, {
    method: 'POST',
    body: {
      apiVersion: APP_API_VERSION,
      kind: APP_KIND,
      metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
      spec,
    },
  });
}

/** Reads an App. */
export async function getApp(namespace: string, name: string): Promise<AppResource | undefined> {
  return (await kube().get({ apiVersion: APP_API_VERSION, kind: APP_KIND, name, namespace })) as unknown as
    | AppResource
    | undefined;
}

/** Merge-patches an App's spec (e.g. to request an operation, as the API does). */
export async function patchSpec(namespace: string, name: string, spec: Record<string, unknown>): Promise<void> {
  await kube().mergePatch({ apiVersion: APP_API_VERSION, kind: APP_KIND, name, namespace }, { spec });
}

/** Writes `spec.operation` like the API server: a new initiatedAt and id. Returns the id. */
export async function requestOperation(
  namespace: string,
  name: string,
  kind: 'Sync' | 'Rollback' | 'Restart' | 'Approve',
  revision?: string,
): Promise<string> {
  const id = randomBytes(8).toString('hex');
  await patchSpec(namespace, name, {
    operation: {
      kind,
      id,
      initiatedAt: new Date().toISOString(),
      triggeredBy: 'test',
      ...(revision ? { revision } : {}),
    },
  });
  return id;
}

/** Waits until the App satisfies `check`; the failure message shows the last status. */
export async function waitForApp(
  namespace: string,
  name: string,
  what: string,
  check: (app: AppResource) => boolean,
  timeoutMs = 60_000,
): Promise<AppResource> {
  let last: AppResource | undefined;
  try {
    return await waitUntil(
      async () => {
        last = await getApp(namespace, name);
        return last && check(last) ? last : undefined;
      },
      { what, timeoutMs, intervalMs: 200 },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\nlast status: ${JSON.stringify(last?.status, null, 1)}`);
  }
}

/** A Kubernetes event, as far as the tests read it. */
export interface CoreEvent {
  metadata?: { annotations?: Record<string, string> };
  /** Normal or Warning. */
  type?: string;
  reason: string;
  message: string;
  reportingInstance?: string;
  source: { component: string };
  /** When it was recorded, in microseconds (svc's Events carry it). */
  eventTime?: string;
}

/** The events in `namespace` about objects named `name`. */
export async function eventsAbout(namespace: string, name: string): Promise<CoreEvent[]> {
  const res = await kube().client.request<{ items: CoreEvent[] }>(`/api/v1/namespaces/${namespace}/events`, {
    query: { fieldSelector: `involvedObject.name=${name}` },
  });
  return res.items;
}

/**
 * The events about `name` once one with `reason` is among them: the operator records Events in the background, so
 * an Event may land just after the status that follows it.
 */
export async function eventsOnceReported(namespace: string, name: string, reason: string): Promise<CoreEvent[]> {
  return waitUntil(
    async () => {
      const events = await eventsAbout(namespace, name);
      return events.some((e) => e.reason === reason) ? events : undefined;
    },
    { what: `a ${reason} event about ${name}`, timeoutMs: 30_000 },
  );
}

/**
 * One series of an operator's /metrics, named as the exposition prints it (`name` or `name{label="…"}`): its value,
 * or undefined when the endpoint does not show it.
 */
export async function operatorMetric(op: TestOperator, series: string): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${op.ports.metrics}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** `svc_reconcile_total{result=…}` of one operator: its reconciles that ended so (0 before the first). */
export async function reconcileCount(op: TestOperator, result: string): Promise<number> {
  return (await operatorMetric(op, `svc_reconcile_total{result="${result}"}`)) ?? 0;
}

/** The svc_operator_shard_apps gauge of one operator's /metrics: how many Apps its shard holds (NaN if absent). */
export async function shardShare(op: TestOperator): Promise<number> {
  return (await operatorMetric(op, 'svc_operator_shard_apps')) ?? Number.NaN;
}

/** Runs a Sync of App `name` and answers the reporting instances of every OperationSucceeded Event about it. */
export async function syncReporters(namespace: string, name: string): Promise<Set<string | undefined>> {
  const id = await requestOperation(namespace, name, 'Sync');
  await waitForApp(
    namespace,
    name,
    'synced',
    (x) => x.status?.operationState?.id === id && x.status.operationState.phase === 'Succeeded',
  );
  const events = await eventsOnceReported(namespace, name, 'OperationSucceeded');
  return new Set(events.map((e) => e.reportingInstance));
}

/** A live object, or undefined. */
export async function getObject(apiVersion: string, kind: string, namespace: string | undefined, name: string) {
  return kube().get({ apiVersion, kind, name, ...(namespace ? { namespace } : {}) });
}

/** The field managers of a live object. */
export function managers(obj: AnyObject | undefined): string[] {
  return ((obj?.metadata['managedFields'] as { manager: string }[] | undefined) ?? []).map((m) => m.manager);
}

/** A Deployment manifest (kwok makes its Pods Ready, on a node matching `nodeSelector` when one is given). */
export function deploymentYaml(
  name: string,
  replicas = 1,
  image = 'nginx:1.0',
  nodeSelector?: Record<string, string>,
): string {
  const pinned = nodeSelector ? `      nodeSelector: ${JSON.stringify(nodeSelector)}\n` : '';
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
${pinned}      containers:
      - name: main
        image: ${image}
`;
}

/**
 * A Deployment manifest whose Pods can never be scheduled (a node selector no node matches) and whose 1 s progress
 * deadline passes at once: the App turns Degraded for real.
 */
export function stuckDeploymentYaml(name: string): string {
  return deploymentYaml(name)
    .replace('spec:\n  replicas: 1', 'spec:\n  progressDeadlineSeconds: 1\n  replicas: 1')
    .replace('    spec:\n      containers:', '    spec:\n      nodeSelector: {nowhere: "true"}\n      containers:');
}

/** A ConfigMap manifest. */
export function configMapYaml(name: string, data: Record<string, string> = { k: 'v' }): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata: ${JSON.stringify(data)}\n`;
}
