import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { type ControlPlane, startControlPlane } from './control-plane.ts';
import { ensureBinaries } from './paths.ts';
import { sweepStaleTempDirs } from './process.ts';

/**
 * Vitest global setup of the `integration` project: builds missing binaries (a no-op when cached), then starts
 * ONE management control plane for the whole run and provides its admin kubeconfig path as
 * `inject('mgmtKubeconfig')`. The returned teardown stops it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  sweepStaleTempDirs();
  await ensureBinaries();
  const plane: ControlPlane = await startControlPlane({ name: 'mgmt' });
  project.provide('mgmtKubeconfig', plane.kubeconfigPath);
  return () => plane.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the management control plane's admin kubeconfig (client cert, `system:masters`). */
    mgmtKubeconfig: string;
  }
}
