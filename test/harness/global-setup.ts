import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { type ControlPlane, startControlPlane } from './control-plane.ts';
import { removeLeakSpool, scanLeakSpool, startLeakSpool } from './leak-registry.ts';
import { watchPlaneForLeaks } from './leak-watch.ts';
import { ensureBinaries } from './paths.ts';
import { sweepStaleTempDirs } from './process.ts';

/**
 * Vitest global setup of the `integration` project: builds missing binaries (a no-op when cached), then starts
 * ONE management control plane for the whole run and provides its admin kubeconfig path as
 * `inject('mgmtKubeconfig')`. It also opens the run's leak spool (test/harness/leak-registry.ts) and watches the
 * plane's Events and Apps into it. The returned teardown scans the spool once — every registered secret against
 * every captured response, log, Event and App — stops the plane, and fails the run on any leak, naming the secret's
 * label and where it was seen (never the value).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  sweepStaleTempDirs();
  await ensureBinaries();
  const spool = startLeakSpool();
  const plane: ControlPlane = await startControlPlane({ name: 'mgmt', ecosystem: true });
  const watch = watchPlaneForLeaks(plane.kubeconfigPath, spool);
  project.provide('mgmtKubeconfig', plane.kubeconfigPath);
  return async () => {
    await watch.stop();
    const scan = scanLeakSpool(spool);
    await plane.stop();
    // SVC_TEST_LEAK_KEEP=1 keeps the spool (the run's secrets and captures) to look at after a failed scan.
    if (process.env['SVC_TEST_LEAK_KEEP'] === '1') console.log(`leak spool kept in ${spool}`);
    else removeLeakSpool(spool);
    const mib = (scan.bytes / (1 << 20)).toFixed(1);
    console.log(
      `leak scan: ${scan.secrets} secrets, ${scan.captures} captures (${mib} MiB), ${scan.leaks.length} leaks`,
    );
    if (scan.leaks.length > 0) {
      const lines = scan.leaks.map((leak) => `  ${leak.secret} — in ${leak.where}`);
      // Vitest 4 only logs an error thrown by a global teardown ("error during close") and exits 0: the exit status
      // is set here so the run fails.
      process.exitCode = 1;
      throw new Error(`LEAK SCAN FAILED: secrets leaked during the integration run:\n${lines.join('\n')}`);
    }
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the management control plane's admin kubeconfig (client cert, `system:masters`). */
    mgmtKubeconfig: string;
  }
}
