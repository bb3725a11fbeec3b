/**
 * Result files: every benchmark writes bench/results/<name>.json with the machine, the versions, its parameters,
 * the raw samples and summary figures, so any two runs can be compared later.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, freemem, loadavg, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { pinnedVersion, repoRoot } from '../../test/harness/index.ts';

/** Where result files go. */
export const resultsDir: string = join(repoRoot, 'bench', 'results');

/** The machine a run happened on. */
export function machine() {
  const cpu = cpus();
  return {
    cores: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    memoryMiB: Math.round(totalmem() / 2 ** 20),
    freeMemoryMiBAtEnd: Math.round(freemem() / 2 ** 20),
    // The machine may be shared: the load average says whether others competed for the cores during the run.
    loadAverage1m5m15m: loadavg().map((x) => Number(x.toFixed(2))),
    os: `${type()} ${release()}`,
    node: process.version,
  };
}

/** Versions of what was measured: svc (package version and git commit) and the control plane. */
export function versions() {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
    } catch {
      return 'unknown'; // Not a git checkout: the package version alone identifies svc.
    }
  };
  // Uncommitted changes outside bench/results/ make the measured code differ from the commit: say so.
  const dirty = git('status', '--porcelain', '--', '.', ':!bench/results') !== '';
  const commit = `${git('rev-parse', '--short', 'HEAD')}${dirty ? '-dirty' : ''}`;
  // A run on a merge (bench + a branch under test) names what was merged.
  const parents = git('log', '-1', '--format=%p', 'HEAD').split(' ');
  return {
    svc: pkg.version,
    svcCommit: commit,
    svcCommitParents: parents,
    kubernetes: pinnedVersion('kubernetes'),
    etcd: pinnedVersion('etcd'),
    kwok: pinnedVersion('kwok'),
    kustomize: pinnedVersion('kustomize'),
  };
}

/** Writes `bench/results/<file>.json` and returns its path. */
export async function writeResult(file: string, body: Record<string, unknown>): Promise<string> {
  await mkdir(resultsDir, { recursive: true });
  const path = join(resultsDir, `${file}.json`);
  const doc = {
    benchmark: file,
    finishedAt: new Date().toISOString(),
    machine: machine(),
    versions: versions(),
    ...body,
  };
  await writeFile(path, `${JSON.stringify(doc, null, 2)}\n`);
  return path;
}
