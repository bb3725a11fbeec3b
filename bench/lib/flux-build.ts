/**
 * Flux's kustomize-controller for the side-by-side converge, built on demand into the tools cache
 * (`~/.cache/svc/flux-kustomize-controller-<version>/`) by the benchmark alone: CI's setup never builds it.
 *
 * Build facts (issue 18): v1.9.6 is the line Flux 2.9 ships; it builds with CGO_ENABLED=0 from a wrapper module
 * that requires it and repeats the `replace` directives of its go.mod (a `go install pkg@version` would ignore
 * them and fail on go-digest). The CRDs come from the module zips on the Go module proxy: kustomize-controller's own
 * and source-controller's (ExternalArtifact, plus GitRepository, OCIRepository and Bucket, without which the
 * controller never starts its workers). Those are Flux's generated files as released.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheDir } from '../../test/harness/index.ts';

/** The kustomize-controller release measured (Flux 2.9). */
export const FLUX_KUSTOMIZE_CONTROLLER_VERSION = 'v1.9.6';
/** The source-controller release whose CRDs are installed (the `api` version kustomize-controller v1.9.6 requires). */
export const FLUX_SOURCE_CONTROLLER_VERSION = 'v1.9.0';

/** Replace directives of kustomize-controller v1.9.6's go.mod (its `./api` replace is the module's own path). */
const replaces = [
  'github.com/opencontainers/go-digest => github.com/opencontainers/go-digest v1.0.1-0.20220411205349-bde1400a84be',
  'sigs.k8s.io/kustomize/api => sigs.k8s.io/kustomize/api v0.21.1',
  'sigs.k8s.io/kustomize/kyaml => sigs.k8s.io/kustomize/kyaml v0.21.1',
  'gopkg.in/yaml.v3 => gopkg.in/yaml.v3 v3.0.1',
];

const sourceCRDs = ['externalartifacts', 'gitrepositories', 'ocirepositories', 'buckets'];

/** Where the controller binary and its CRDs live once built. */
export interface FluxTools {
  binary: string;
  /** CRD manifests to install on the plane (Kustomization, ExternalArtifact, GitRepository, OCIRepository, Bucket). */
  crdFiles: string[];
  version: string;
}

function go(args: string[], cwd: string): string {
  return execFileSync('go', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 2 ** 20,
  });
}

function moduleDir(module: string, cwd: string): string {
  return (JSON.parse(go(['mod', 'download', '-json', module], cwd)) as { Dir: string }).Dir;
}

/**
 * The cached controller and CRDs, building them first when absent (needs `go` and the module proxy; a few minutes
 * and ~1 GB of module cache on a cold machine).
 */
export function ensureFluxTools(log: (line: string) => void = () => {}): FluxTools {
  const dir = join(cacheDir(), `flux-kustomize-controller-${FLUX_KUSTOMIZE_CONTROLLER_VERSION}`);
  const binary = join(dir, 'kustomize-controller');
  const crdFiles = [
    join(dir, 'kustomize.toolkit.fluxcd.io_kustomizations.yaml'),
    ...sourceCRDs.map((name) => join(dir, `source.toolkit.fluxcd.io_${name}.yaml`)),
  ];
  if ([binary, ...crdFiles].every((file) => existsSync(file))) {
    return { binary, crdFiles, version: FLUX_KUSTOMIZE_CONTROLLER_VERSION };
  }
  log(`building Flux kustomize-controller ${FLUX_KUSTOMIZE_CONTROLLER_VERSION} into ${dir} (once)`);
  const work = join(tmpdir(), `svc-flux-build-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    writeFileSync(
      join(work, 'go.mod'),
      ['module svc.bench/flux', '', 'go 1.26.0', '', ...replaces.map((r) => `replace ${r}`), ''].join('\n'),
    );
    go(['get', `github.com/fluxcd/kustomize-controller@${FLUX_KUSTOMIZE_CONTROLLER_VERSION}`], work);
    const staging = join(work, 'out');
    mkdirSync(staging);
    go(['build', '-o', join(staging, 'kustomize-controller'), 'github.com/fluxcd/kustomize-controller'], work);
    const kc = moduleDir(`github.com/fluxcd/kustomize-controller@${FLUX_KUSTOMIZE_CONTROLLER_VERSION}`, work);
    const sc = moduleDir(`github.com/fluxcd/source-controller@${FLUX_SOURCE_CONTROLLER_VERSION}`, work);
    copyFileSync(
      join(kc, 'config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml'),
      join(staging, 'kustomize.toolkit.fluxcd.io_kustomizations.yaml'),
    );
    for (const name of sourceCRDs) {
      const file = `source.toolkit.fluxcd.io_${name}.yaml`;
      copyFileSync(join(sc, 'config/crd/bases', file), join(staging, file));
    }
    // Whole directory at once: a build interrupted halfway never leaves a cache that looks complete.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(cacheDir(), { recursive: true });
    renameSync(staging, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { binary, crdFiles, version: FLUX_KUSTOMIZE_CONTROLLER_VERSION };
}
