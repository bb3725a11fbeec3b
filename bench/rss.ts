/**
 * rss: the resident memory of `svc server` and `svc operator` (separate processes, as users run them) when idle,
 * first with no App and then with N Apps converged (Synced and Healthy). Both processes keep an App cache, so the
 * second figure includes N cached Apps. Read from /proc/<pid>/status (VmRSS) after a quiet pause.
 */
import { connect } from '../src/kube/index.ts';
import { startGitServer } from '../test/harness/index.ts';
import { APPS_NAMESPACE, appResource, fixtureFiles } from './lib/fixture.ts';
import { startBenchPlane } from './lib/plane.ts';
import { forEachLimit } from './lib/pool.ts';
import { readProc } from './lib/proc.ts';
import { writeResult } from './lib/results.ts';
import { startOperatorProcess, startServerProcess } from './lib/svc-process.ts';
import { appReadyKey, appsPath, waitForAll } from './lib/wait.ts';

/** Parameters of one rss run. */
export interface RssParams {
  apps: number;
  /** Quiet pause before each reading, in seconds. */
  idleSeconds: number;
  timeoutMs: number;
}

const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** Runs the rss benchmark and writes bench/results/rss.json. */
export async function rss(params: RssParams, log: (line: string) => void): Promise<string> {
  const plane = await startBenchPlane('bench-rss');
  const git = await startGitServer();
  const { client, objects } = connect({ kubeconfigPath: plane.kubeconfigPath });
  try {
    const repo = await git.createRepo('bench-fixture', fixtureFiles());
    await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: APPS_NAMESPACE } });
    const operator = await startOperatorProcess({ kubeconfigPath: plane.kubeconfigPath });
    const server = await startServerProcess({ kubeconfigPath: plane.kubeconfigPath });
    try {
      const reading = () => ({
        serverRssMiB: readProc(server.pid)?.rssMiB,
        operatorRssMiB: readProc(operator.pid)?.rssMiB,
      });
      log(`rss: idle with no App (${params.idleSeconds} s)`);
      await pause(params.idleSeconds);
      const empty = reading();
      log(`  server ${empty.serverRssMiB} MiB, operator ${empty.operatorRssMiB} MiB`);
      log(`rss: creating ${params.apps} Apps`);
      const start = performance.now();
      const ready = waitForAll(client, appsPath, params.apps, appReadyKey(), start, params.timeoutMs);
      ready.catch(() => undefined);
      await forEachLimit(params.apps, 8, async (i) => {
        await client.request(appsPath, { method: 'POST', body: appResource(i, repo.url) });
      });
      const converged = (await ready).size;
      log(`  ${converged}/${params.apps} Synced+Healthy; idle ${params.idleSeconds} s`);
      await pause(params.idleSeconds);
      const full = reading();
      log(`  server ${full.serverRssMiB} MiB, operator ${full.operatorRssMiB} MiB`);
      return await writeResult('rss', {
        parameters: params,
        summary: { apps: params.apps, converged, noApps: empty, withApps: full },
      });
    } finally {
      await server.stop();
      await operator.stop();
    }
  } finally {
    await client.dropConnections();
    await git.stop();
    await plane.stop();
  }
}
