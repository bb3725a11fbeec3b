import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Absolute path of the repository root (two levels above this file). */
export const repoRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const buildScript = join(repoRoot, 'scripts', 'build-binaries.sh');

/** Components built by scripts/build-binaries.sh, each with the variable that pins its version there. */
const pinVariables = {
  kubernetes: 'K8S_VERSION',
  etcd: 'ETCD_VERSION',
  kwok: 'KWOK_VERSION',
  openbao: 'OPENBAO_VERSION',
  kustomize: 'KUSTOMIZE_VERSION',
  helm: 'HELM_VERSION',
  sops: 'SOPS_VERSION',
  'eso-crds': 'ESO_VERSION',
  'cert-manager-crds': 'CERT_MANAGER_VERSION',
  'argo-rollouts-crds': 'ARGO_ROLLOUTS_VERSION',
  'argocd-crds': 'ARGOCD_VERSION',
  'flux-crds': 'FLUX_VERSION',
  'crossplane-crds': 'CROSSPLANE_VERSION',
  'prometheus-operator-crds': 'PROMETHEUS_OPERATOR_VERSION',
  schemathesis: 'SCHEMATHESIS_VERSION',
  'token-server': 'TOKEN_SERVER_VERSION',
} as const;

/** A component that scripts/build-binaries.sh builds into the cache. */
export type Component = keyof typeof pinVariables;

/** The binary cache: `$SVC_TOOLS_DIR` or `~/.cache/svc` (same rule as scripts/build-binaries.sh). */
export function cacheDir(): string {
  return process.env['SVC_TOOLS_DIR'] ?? join(homedir(), '.cache', 'svc');
}

let pinned: Record<Component, string> | undefined;

/**
 * The pinned version of a component, read from scripts/build-binaries.sh so that the script stays the one place
 * where versions are written.
 */
export function pinnedVersion(component: Component): string {
  if (!pinned) {
    const text = readFileSync(buildScript, 'utf8');
    const found = {} as Record<Component, string>;
    for (const [name, variable] of Object.entries(pinVariables) as [Component, string][]) {
      const match = new RegExp(`^${variable}=(\\S+)$`, 'm').exec(text);
      if (!match?.[1]) throw new Error(`scripts/build-binaries.sh does not pin ${variable}`);
      found[name] = match[1];
    }
    pinned = found;
  }
  return pinned[component];
}

/** Cache directory of one component, e.g. `~/.cache/svc/etcd-v3.6.16`. */
export function componentDir(component: Component): string {
  return join(cacheDir(), `${component}-${pinnedVersion(component)}`);
}

/**
 * Absolute path of a built binary. Throws with the command to run when the component has not been built (its
 * `.done` marker is missing).
 */
export function binary(component: Component, name: string = component): string {
  const dir = componentDir(component);
  if (!existsSync(join(dir, '.done'))) {
    throw new Error(`${component} is not built in ${dir}: run \`bash scripts/build-binaries.sh ${component}\``);
  }
  return join(dir, name);
}

let ensured: Promise<void> | undefined;

/**
 * Runs scripts/build-binaries.sh once per process: a no-op (milliseconds) when every component is cached, a full
 * build otherwise. Called by the vitest global setup and `npm run cluster` so a fresh checkout just works.
 */
export function ensureBinaries(): Promise<void> {
  ensured ??= execFileAsync('bash', [buildScript], { maxBuffer: 64 * 1024 * 1024 }).then(() => undefined);
  return ensured;
}
