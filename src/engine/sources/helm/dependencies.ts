/**
 * A chart's dependencies (Chart.yaml `dependencies`, or requirements.yaml for apiVersion v1 charts) that its
 * archive does not carry in `charts/`: each is fetched from its own repository with the org's credentials for that
 * repository (the covering repository with the longest URL, as for any source), under the outbound policy and the
 * render bounds, at the version Chart.lock pins or else the newest its range allows, and unpacked into `charts/`
 * (checked like any chart archive). Helm itself then renders offline. Dependencies of dependencies are handled the
 * same way, a few levels deep.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { newestMatching } from '../../../core/helm-chart.ts';
import { type ArchiveBounds, extractChartArchive, ManifestError } from '../../../render/index.ts';
import type { ChartRepos } from './charts.ts';
import type { ChartLocation } from './types.ts';

/** One dependency as Chart.yaml declares it. */
interface Dependency {
  name: string;
  version?: string;
  repository?: string;
}

/** How deep dependencies of dependencies are followed, and how many are fetched for one chart in all. */
const MAX_DEPTH = 3;
const MAX_FETCHED = 32;

/** What fetching dependencies needs. */
export interface DependencyContext {
  charts: ChartRepos;
  /** The location of a dependency's chart in its repository (its org scope and credentials). */
  locate: (repoURL: string, chart: string) => ChartLocation;
  bounds: ArchiveBounds;
  /** Counts fetches across the whole tree. */
  fetched: { count: number };
}

async function readYaml(path: string): Promise<Record<string, unknown> | undefined> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const doc = parse(text, { maxAliasCount: 100 }) as unknown;
  return typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>) : undefined;
}

function dependenciesOf(doc: Record<string, unknown> | undefined): Dependency[] {
  const list = doc?.['dependencies'];
  if (!Array.isArray(list)) return [];
  return list.filter(
    (d): d is Dependency => typeof d === 'object' && d !== null && typeof (d as Dependency).name === 'string',
  );
}

/** Whether `charts/` already holds the dependency `name` (a directory or an archive, as Helm loads them). */
async function present(chartsDir: string, name: string): Promise<boolean> {
  const entries = await readdir(chartsDir).catch(() => [] as string[]);
  return entries.some((e) => e === name || (e.startsWith(`${name}-`) && e.endsWith('.tgz')));
}

/** Fetches what the chart in `chartDir` depends on and does not carry (see the module comment). */
export async function fetchDependencies(chartDir: string, ctx: DependencyContext, depth = 0): Promise<void> {
  const chartYaml = await readYaml(join(chartDir, 'Chart.yaml'));
  const declared = [
    ...dependenciesOf(chartYaml),
    ...dependenciesOf(await readYaml(join(chartDir, 'requirements.yaml'))),
  ];
  if (declared.length === 0) return;
  const locked = dependenciesOf(
    (await readYaml(join(chartDir, 'Chart.lock'))) ?? (await readYaml(join(chartDir, 'requirements.lock'))),
  );
  const chartsDir = join(chartDir, 'charts');
  const what = `${String(chartYaml?.['name'] ?? 'chart')} dependencies`;
  for (const dep of declared) {
    const repo = dep.repository ?? '';
    if (repo === '' || repo.startsWith('file://') || (await present(chartsDir, dep.name))) continue;
    if (repo.startsWith('@') || repo.startsWith('alias:')) {
      throw new ManifestError(what, `dependency ${dep.name} names a repository by alias (${repo}): use its URL`);
    }
    if (depth >= MAX_DEPTH || ++ctx.fetched.count > MAX_FETCHED) {
      throw new ManifestError(what, `more than ${MAX_FETCHED} dependencies, or nested deeper than ${MAX_DEPTH}`);
    }
    const range = locked.find((l) => l.name === dep.name && l.repository === repo)?.version ?? dep.version ?? '*';
    const unpacked = await fetchDependency(ctx, { what, repo, name: dep.name, range }, chartsDir);
    await fetchDependencies(unpacked, ctx, depth + 1);
  }
}

/** Fetches the newest version of dependency `name` from `repo` in `range` (the lock's pin first) into `chartsDir`. */
async function fetchDependency(
  ctx: DependencyContext,
  dep: { what: string; repo: string; name: string; range: string },
  chartsDir: string,
): Promise<string> {
  const loc = ctx.locate(dep.repo, dep.name);
  const versions = await ctx.charts.versions(loc, { maxAgeMs: 60_000 });
  const version = newestMatching(
    versions.map((v) => v.version),
    dep.range,
  );
  const entry = versions.find((v) => v.version === version);
  if (!entry) throw new ManifestError(dep.what, `no version of ${dep.name} in ${dep.repo} matches ${dep.range}`);
  const digest = await ctx.charts.digestOf(loc, entry);
  const archive = await ctx.charts.archive(loc, entry.version, digest);
  return extractChartArchive(archive, chartsDir, `${dep.name}@${entry.version}`, ctx.bounds);
}
