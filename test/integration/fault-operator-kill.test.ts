/**
 * Fault matrix (issue 17): the operator SIGKILLed mid-apply, two `svc operator` processes under leader election. The
 * leader's apply of a Sync operation is held at one object by an admission webhook (the objects before it written,
 * that one not), so it is provably mid-apply when the process is SIGKILLed: no clean shutdown, the Lease not
 * released. While the Lease runs out the App shows the operation Running (nothing Failed, nothing lost); the other
 * process takes the Lease and completes the operation exactly once: one OperationSucceeded event, from it, one
 * history entry, every object applied. Handover takes the Lease's 15 s (the `svc operator` default).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type AdmissionHold, repoRoot, startAdmissionHold, waitUntil } from '../harness/index.ts';
import { type ManagedProcess, startProcess } from '../harness/process.ts';
import {
  configMapYaml,
  createApp,
  deleteNamespaces,
  eventsOnceReported,
  getApp,
  kube,
  requestOperation,
  unique,
  useOperatorSuite,
  waitForApp,
} from './operator-support.ts';

const suite = useOperatorSuite('org-fault-kill', false);
const { org } = suite;
const leaseNs = unique('lease');
const label = { label: 'svc-test-fault-kill', value: unique('v') };
const dir = mkdtempSync(join(tmpdir(), 'svc-fault-kill-'));
const operators: ManagedProcess[] = [];
let hold: AdmissionHold | undefined;

/** The holder of the operators' Lease. */
async function leaseHolder(): Promise<string | undefined> {
  const lease = await kube().get({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    name: 'svc-operator',
    namespace: leaseNs,
  });
  return ((lease?.['spec'] ?? {}) as { holderIdentity?: string }).holderIdentity || undefined;
}

/** Starts `svc operator` as its own process (leader election on a Lease in `leaseNs`), watching the org. */
function startOperatorProcess(name: string): ManagedProcess {
  const data = join(dir, name);
  const proc = startProcess(
    name,
    join(repoRoot, 'node_modules/.bin/node'),
    [
      join(repoRoot, 'bin/svc.js'),
      'operator',
      '--leader-elect=true',
      `--leader-election-namespace=${leaseNs}`,
      `--watch-namespace=${org}`,
      '--sync-period=10m',
      '--webhook-bind-address=127.0.0.1:0',
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
    ],
    {
      logDir: dir,
      leakScanAs: `svc operator log (${name}, fault-operator-kill)`,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        SVC_MGMT_KUBECONFIG: inject('mgmtKubeconfig'),
        SVC_DATA_DIR: data,
        SVC_LOG_LEVEL: 'info',
      },
    },
  );
  operators.push(proc);
  return proc;
}

beforeAll(async () => {
  await kube().apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: leaseNs } });
  hold = await startAdmissionHold(kube(), unique('svc-test-hold'), label);
});
// Registered after the suite's hooks, so it runs before them.
afterAll(async () => {
  for (const p of operators) await p.stop().catch(() => undefined);
  await hold?.stop();
  await deleteNamespaces(leaseNs);
  rmSync(dir, { recursive: true, force: true });
});

describe('fault: the operator SIGKILLed mid-apply', () => {
  it('the other operator takes over and the operation completes exactly once', async () => {
    const a = startOperatorProcess('operator-a');
    const aIdentity = await waitUntil(leaseHolder, {
      what: `operator-a leading (log: ${a.logTail(5)})`,
      timeoutMs: 60_000,
    });
    const b = startOperatorProcess('operator-b');

    const dest = suite.dest();
    await kube().apply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: dest, labels: { [label.label]: label.value } },
    });
    const files: Record<string, string> = {};
    for (let i = 0; i < 5; i++) files[`m/cm-${i}.yaml`] = configMapYaml(`cm-${i}`, { i: String(i) });
    const repo = await suite.git.createRepo(unique('kill'), files);
    await createApp(org, 'kill', {
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      destination: { namespace: dest },
    });
    await waitForApp(org, 'kill', 'observed', (x) => x.status?.observedRevision !== undefined);

    // The leader's apply is held at cm-2: provably mid-apply. The objects of one rank go out a few at a time, so the
    // other four pass meanwhile; the operation cannot finish while cm-2 hangs. Wait for all four before the kill, so
    // every write after it is the new leader's.
    const held = hold?.arm('cm-2');
    if (!held) throw new Error('no admission hold');
    const id = await requestOperation(org, 'kill', 'Sync');
    const writesTo = () =>
      (hold?.requests ?? []).filter((r) => r.namespace === dest && r.fieldManager === 'svc-operator');
    await waitUntil(() => held.waiting() || undefined, {
      what: 'the apply of cm-2 held',
      timeoutMs: 60_000,
      intervalMs: 50,
    });
    await waitUntil(() => writesTo().length === 5 || undefined, {
      what: 'the four other objects applied by the leader',
      timeoutMs: 60_000,
      intervalMs: 50,
    });
    const beforeKill = writesTo();
    expect(beforeKill.map((r) => r.name).sort()).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);

    process.kill(-a.pid, 'SIGKILL');
    await waitUntil(() => a.exitCode() !== undefined || undefined, { what: 'operator-a dead', timeoutMs: 30_000 });
    // The dead leader's held write is let through late (what a slow apiserver would do); the takeover re-applies.
    held.release();

    // While the Lease runs out: the operation is still Running, nothing failed, nothing deleted.
    const during = await getApp(org, 'kill');
    expect(during?.status?.operationState).toMatchObject({ id, phase: 'Running' });
    expect(await leaseHolder()).toBe(aIdentity);

    const done = await waitForApp(
      org,
      'kill',
      'the operation Succeeded after handover',
      (x) => x.status?.operationState?.id === id && x.status.operationState.phase === 'Succeeded',
      120_000,
    );
    const bIdentity = await leaseHolder();
    expect(bIdentity).not.toBe(aIdentity);
    expect(b.exitCode()).toBeUndefined();
    expect(done.status?.revision).toBe(await repo.head());
    expect(done.status?.syncStatus).toBe('Synced');
    for (let i = 0; i < 5; i++) {
      const cm = await kube().get({ apiVersion: 'v1', kind: 'ConfigMap', name: `cm-${i}`, namespace: dest });
      expect(cm?.['data'], `cm-${i}`).toEqual({ i: String(i) });
    }
    const events = await eventsOnceReported(org, 'kill', 'OperationSucceeded');
    const succeeded = events.filter((e) => e.reason === 'OperationSucceeded');
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]?.reportingInstance).toBe(bIdentity);
    expect(events.filter((e) => e.reason === 'OperationFailed')).toHaveLength(0);
    // Applies counted at admission: the killed leader wrote all five and hung at cm-2; after the handover the new
    // leader applied every object exactly once (one apply pass: the operation ran once).
    expect(
      writesTo()
        .slice(beforeKill.length)
        .map((r) => r.name)
        .sort(),
    ).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
  });
});
