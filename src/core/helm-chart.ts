/**
 * Rules of a HelmChart source (`spec.source.helmChart`) shared by the API (400 at create), the operator (a stall
 * for an edited resource), the CLI and the UI: where a chart may come from, which versions a spec may ask for, and
 * the revision string that names one chart version exactly.
 *
 * A revision is `<chart>@<version>@<digest>`: the chart's name and version as a person reads them, and the digest
 * of what was deployed (the OCI manifest digest, or the sha256 of a chart archive from an HTTP repository), so a
 * version re-published with other content is noticed instead of deployed silently. `<chart>@<version>` alone is
 * accepted where a person names a revision (Rollback).
 */
import semver from 'semver';
import { helmReleaseProblems } from './git-source-args.ts';

/** Chart names: letters, digits, `.`, `_` and `-`, not starting with `.` or `-` (never an option, never a path). */
const CHART_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,249}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The kind of chart repository a URL names: an HTTP(S) Helm repository (index.yaml) or an OCI registry path. */
export type ChartRepositoryKind = 'http' | 'oci';

/** `oci` for `oci://…`, `http` for `http(s)://…`, undefined for anything else. */
export function chartRepositoryKind(url: string): ChartRepositoryKind | undefined {
  if (/^oci:\/\//i.test(url)) return 'oci';
  if (/^https?:\/\//i.test(url)) return 'http';
  return undefined;
}

/** Why `url` cannot be a chart repository URL (without repeating it: a URL may carry credentials), or undefined. */
export function chartRepoURLProblem(url: unknown): string | undefined {
  if (typeof url !== 'string' || url === '') return 'repoURL is required';
  if (!chartRepositoryKind(url)) return 'repoURL must be an https://, http:// or oci:// URL';
  let parsed: URL;
  try {
    parsed = new URL(url.replace(/^oci:/i, 'https:'));
  } catch {
    return 'repoURL is not a valid URL';
  }
  if (parsed.username || parsed.password)
    return 'repoURL must not carry a user name or password (register a repository)';
  if (parsed.search || parsed.hash) return 'repoURL must not have a query or fragment';
  if (/[\s\0]/.test(url)) return 'repoURL must not contain whitespace';
  return undefined;
}

/** Why `range` is not a chart version or semver range, or undefined. */
export function chartVersionProblem(range: unknown): string | undefined {
  if (typeof range !== 'string' || range.trim() === '') return 'version must be a version or a semver range';
  if (range.startsWith('-') || semver.validRange(range) === null) {
    return 'version must be an exact version (1.2.3) or a semver range (1.2.x, ^1.2.0, >=1.0 <2)';
  }
  return undefined;
}

/** Why a values file path is unsafe to hand to helm (absolute, `..`, an option, control characters), or undefined. */
function valuesFileProblem(path: string): string | undefined {
  if (path.startsWith('-') || path.startsWith('/') || /[\0\n\r]/.test(path)) {
    return 'must be a path inside the chart (relative, not starting with -)';
  }
  if (path.split('/').includes('..')) return 'must not leave the chart (..)';
  return undefined;
}

/**
 * Every problem with a HelmChart source, each message starting with `prefix` (`source.helmChart` for the API,
 * `spec.source.helmChart` in the operator). Values are not echoed back. Wrong types are left to the schema.
 */
export function helmChartProblems(source: object, prefix: string): string[] {
  const chart = source as Record<string, unknown>;
  const problems: string[] = [];
  const urlProblem = chartRepoURLProblem(chart['repoURL']);
  if (urlProblem) problems.push(`${prefix}.${urlProblem}`);
  if (typeof chart['chart'] !== 'string' || !CHART_NAME.test(chart['chart'])) {
    problems.push(`${prefix}.chart must be a chart name (letters, digits, . _ -; not starting with . or -)`);
  }
  const versionProblem = chart['version'] === undefined ? undefined : chartVersionProblem(chart['version']);
  if (versionProblem) problems.push(`${prefix}.${versionProblem}`);
  problems.push(...valuesFilesProblems(chart['valuesFiles'], prefix));
  if (chart['values'] !== undefined && !isObject(chart['values'])) problems.push(`${prefix}.values must be an object`);
  problems.push(...helmReleaseProblems(chart['releaseName'], chart['namespace'], prefix));
  return problems;
}

/** Problems of the `valuesFiles` entries (each a path inside the chart). */
function valuesFilesProblems(files: unknown, prefix: string): string[] {
  const problems: string[] = [];
  for (const file of Array.isArray(files) ? (files as unknown[]) : []) {
    const why = typeof file === 'string' ? valuesFileProblem(file) : 'must be a string';
    if (why) problems.push(`${prefix}.valuesFiles entry ${why}`);
  }
  return problems;
}

/** One chart version exactly: name, version and (when known) the digest of its content. */
export interface ChartRevision {
  chart: string;
  version: string;
  digest?: string;
}

/** The revision string of a chart version: `<chart>@<version>@<digest>` (see the module comment). */
export function chartRevision(r: Required<ChartRevision>): string {
  return `${r.chart}@${r.version}@${r.digest}`;
}

/** Parses `<chart>@<version>[@<digest>]`; undefined when `text` is not one. */
export function parseChartRevision(text: string): ChartRevision | undefined {
  const [chart, version, digest, ...rest] = text.split('@');
  if (rest.length > 0 || !chart || !version || !CHART_NAME.test(chart) || semver.valid(version) === null) {
    return undefined;
  }
  if (digest !== undefined && !DIGEST.test(digest)) return undefined;
  return { chart, version, ...(digest ? { digest } : {}) };
}

/**
 * The newest of `versions` that `range` allows (an exact version matches itself only). Pre-releases match only a
 * range that names a pre-release of the same version, as npm's semver rules say. Undefined when none matches.
 */
export function newestMatching(versions: Iterable<string>, range: string): string | undefined {
  const exact = semver.valid(range);
  const list = [...versions].filter((v) => semver.valid(v) !== null);
  if (exact !== null) return list.find((v) => semver.eq(v, exact));
  return semver.maxSatisfying(list, range) ?? undefined;
}
