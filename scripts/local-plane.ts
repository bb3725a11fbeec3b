/**
 * The local management control plane of `npm run cluster` and `npm start` (test/harness/control-plane.ts: etcd,
 * kube-apiserver, kube-controller-manager, kube-scheduler, kwok with one fake node, the App CRD), started after the
 * pinned binaries it and svc's renderers need are built, once, by scripts/build-binaries.sh (its progress on
 * stderr). Its files live in a temporary directory; it runs as long as the process that started it (the harness
 * stops every component when that process exits, however it exits).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type ControlPlane, startControlPlane } from '../test/harness/control-plane.ts';
import { kubectl } from '../test/harness/kube.ts';
import { type Component, componentDir, repoRoot } from '../test/harness/paths.ts';
import { sweepStaleTempDirs, waitUntil } from '../test/harness/process.ts';

/** What the plane runs (etcd, Kubernetes, kwok, the external-secrets CRDs) and what svc renders with. */
export const LOCAL_COMPONENTS: readonly Component[] = [
  'etcd',
  'kubernetes',
  'kwok',
  'eso-crds',
  'kustomize',
  'helm',
  'sops',
];

/** The components of LOCAL_COMPONENTS not built yet (no `.done` marker in the cache). */
export function missingComponents(): Component[] {
  return LOCAL_COMPONENTS.filter((c) => !existsSync(join(componentDir(c), '.done')));
}

/**
 * Builds `components` with scripts/build-binaries.sh, its output on this process's stderr (one line per component
 * and step). Rejects when Go is missing (the builds come from the Go module proxy) or the build fails.
 */
export async function buildComponents(components: readonly Component[]): Promise<void> {
  if (components.length === 0) return;
  if (spawnSync('go', ['version'], { stdio: 'ignore' }).status !== 0) {
    throw new Error(
      `building ${components.join(', ')} needs Go >= 1.25 on PATH (the pinned binaries come from the Go module proxy)`,
    );
  }
  const build = spawn('bash', [join(repoRoot, 'scripts', 'build-binaries.sh'), ...components], {
    stdio: ['ignore', process.stderr, process.stderr],
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    build.once('error', reject);
    build.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`scripts/build-binaries.sh ${components.join(' ')} failed (exit ${code})`);
}

/**
 * Builds what is missing (saying so through `say`), then starts the plane (`name` labels its directory). Resolves
 * once the apiserver is ready, the fake node Ready and Apps can be listed.
 */
export async function startLocalPlane(name: string, say: (line: string) => void): Promise<ControlPlane> {
  sweepStaleTempDirs();
  const missing = missingComponents();
  if (missing.length > 0) {
    say(`building ${missing.join(', ')} once (from the Go module proxy; several minutes the first time)...`);
    await buildComponents(missing);
  }
  const plane = await startControlPlane({ name });
  // A CRD just established answers 429 "storage is (re)initializing" for a moment: wait, so that svc's first list
  // of Apps does not log a failure a new user would take for a problem.
  await waitUntil(() => kubectl(plane.kubeconfigPath, ['get', 'apps.cd.svc.space', '-A']).then(() => true), {
    what: 'Apps served by the new control plane',
    timeoutMs: 60_000,
    intervalMs: 200,
  }).catch(async (err: unknown) => {
    await plane.stop();
    throw err;
  });
  return plane;
}
