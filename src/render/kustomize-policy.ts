/**
 * What a kustomization may read (issue 17; GHSA-9v9p-x54c-58gc class): only files of the App's own checkout.
 *
 * `kustomize build` alone is not enough of a fence. Its default `--load-restrictor LoadRestrictionsRootOnly` only
 * keeps *file* loads (patches, generator inputs, file resources) under each kustomization's own directory; a
 * directory entry in `resources`/`bases`/`components` starts a new root anywhere on the disk
 * (`resources: [../../../../etc/ssl]` is opened), and URL or git-shaped entries are fetched from the network by the
 * operator (`resources: [http://127.0.0.1:9/x.yaml]` dials loopback). So before the build, svc walks every
 * kustomization kustomize would read and refuses:
 * - any remote reference: a URL (`scheme://`), `git@host:…`, `git::…`, a `github.com/`-style host path, `?ref=`;
 * - any absolute path;
 * - any path that resolves, after symlinks, outside the checkout root;
 * - `helmCharts` and `helmChartInflationGenerator` (kustomize's chart inflation fetches charts from repositories);
 *   Helm charts are deployed with `manifestType: Helm` instead.
 * Inline entries (YAML text in `patchesStrategicMerge`, `generators`, `transformers`, `validators`, `patches[].patch`)
 * are not paths and are left alone, except that an inline or file generator config of kind
 * HelmChartInflationGenerator is refused as above.
 * A local path that does not exist (and is not remote-shaped) is a ManifestError, as kustomize's own error would be:
 * a commit can add it.
 * A refusal is a KustomizationRefused (an InputError: the App stalls) naming the kustomization file relative to the
 * repository and the offending entry; it never holds a path of the server's disk.
 */
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { InputError } from '../core/errors.ts';
import { resolveInside } from '../git/checkout.ts';
import { KUSTOMIZATION_FILES } from './detect.ts';
import { ManifestError } from './types.ts';

/** A kustomization names something svc will not let kustomize read. `file` is relative to the repository. */
export class KustomizationRefused extends InputError {
  readonly file: string;
  readonly entry: string;
  constructor(file: string, field: string, entry: string, why: string) {
    super(`${file}: ${field} entry "${entry}" ${why}`);
    this.file = file;
    this.entry = entry;
  }
}

/** The files the kustomization graph reads (absolute paths inside the checkout), each once. */
export interface KustomizationGraph {
  /** Kustomization files visited. */
  kustomizations: string[];
  /** Every other local file named (resources, patches, generator inputs, configs…). */
  files: string[];
}

type Kustomization = Record<string, unknown>;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const objects = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];
/** YAML text written in place of a path (kustomize accepts it in these fields). */
const isInline = (entry: string) => entry.includes('\n') || /^\s*[{[]/.test(entry);

/** True when kustomize would fetch `entry` rather than read it from disk (URL, scp-like git, host path, ?ref=). */
export function isRemoteReference(entry: string): boolean {
  const e = entry.trim();
  return (
    /^[a-z][a-z0-9+.-]*:\/\//i.test(e) ||
    /^git(@|::)/i.test(e) ||
    /^[\w.-]+@[\w.-]+:/.test(e) ||
    /^(gh|github|gitlab|bitbucket):/i.test(e) ||
    /^(www\.)?(github\.com|gitlab\.com|bitbucket\.org|dev\.azure\.com|ssh\.dev\.azure\.com)\//i.test(e) ||
    /[?&]ref=/.test(e) ||
    // kustomize's repo-spec separators: `repo//path` and Azure's `_git/`.
    e.includes('//') ||
    e.includes('_git/') ||
    /^[\w-]+(\.[\w-]+)+(:\d+)?\/.*\.git(\/|$|\?)/.test(e)
  );
}

/** One path-valued entry of a kustomization: the field it is in, and what it must be. */
interface Entry {
  field: string;
  value: string;
  /** A directory here is another kustomization to walk (resources, bases, components). */
  kustomizationDir: boolean;
  /** A file here is a plugin config (generators, transformers, validators) whose kind is checked. */
  pluginConfig?: boolean;
}

/** Refuses `entry` of `field` with the reason `why` (throws). */
type Refuse = (field: string, entry: string, why: string) => never;
/** Adds path entries of `field`. */
type Add = (field: string, values: string[], extra?: Partial<Entry>) => void;

/** The path-valued entries of a kustomization, and refusals for fields that always fetch. */
function entriesOf(k: Kustomization, refuse: Refuse): Entry[] {
  const out: Entry[] = [];
  const add: Add = (field, values, extra = {}) => {
    for (const value of values) out.push({ field, value, kustomizationDir: false, ...extra });
  };
  add('resources', strings(k['resources']), { kustomizationDir: true });
  add('bases', strings(k['bases']), { kustomizationDir: true });
  add('components', strings(k['components']), { kustomizationDir: true });
  add('crds', strings(k['crds']));
  add('configurations', strings(k['configurations']));
  add(
    'patchesStrategicMerge',
    strings(k['patchesStrategicMerge']).filter((p) => !isInline(p)),
  );
  pluginEntries(k, add, refuse);
  for (const field of ['patches', 'patchesJson6902', 'replacements']) {
    for (const p of objects(k[field])) if (typeof p['path'] === 'string') add(`${field}[].path`, [p['path']]);
  }
  generatorEntries(k, add);
  otherEntries(k, add);
  refuseCharts(k, refuse);
  return out.filter((e) => e.value !== '');
}

/** generators, transformers, validators: a file is a plugin config to check; inline text is checked at once. */
function pluginEntries(k: Kustomization, add: Add, refuse: Refuse): void {
  for (const field of ['generators', 'transformers', 'validators']) {
    for (const value of strings(k[field])) {
      if (isInline(value)) checkPluginConfig(value, field, value, refuse);
      else add(field, [value], { kustomizationDir: true, pluginConfig: true });
    }
  }
}

/** The files of configMapGenerator and secretGenerator entries. */
function generatorEntries(k: Kustomization, add: Add): void {
  for (const field of ['configMapGenerator', 'secretGenerator']) {
    for (const g of objects(k[field])) {
      // `files` entries are `path` or `key=path`.
      add(
        `${field}[].files`,
        strings(g['files']).map((f) => (f.includes('=') ? f.slice(f.indexOf('=') + 1) : f)),
      );
      add(`${field}[].envs`, strings(g['envs']));
      if (typeof g['env'] === 'string') add(`${field}[].env`, [g['env']]);
    }
  }
}

/** openapi.path, helmGlobals.chartHome and helmGlobals.configHome. */
function otherEntries(k: Kustomization, add: Add): void {
  const openapi = k['openapi'];
  if (typeof openapi === 'object' && openapi !== null && typeof (openapi as Kustomization)['path'] === 'string') {
    add('openapi.path', [(openapi as Kustomization)['path'] as string]);
  }
  const helmGlobals = k['helmGlobals'];
  if (typeof helmGlobals !== 'object' || helmGlobals === null) return;
  for (const key of ['chartHome', 'configHome']) {
    const v = (helmGlobals as Kustomization)[key];
    if (typeof v === 'string') add(`helmGlobals.${key}`, [v]);
  }
}

/** helmCharts and helmChartInflationGenerator always fetch the chart: refused. */
function refuseCharts(k: Kustomization, refuse: Refuse): void {
  for (const field of ['helmCharts', 'helmChartInflationGenerator']) {
    const charts = objects(k[field]);
    if (charts.length === 0) continue;
    const name = typeof charts[0]?.['name'] === 'string' ? charts[0]['name'] : '';
    refuse(
      field,
      name,
      'is refused: kustomize would fetch the chart; deploy charts with manifestType Helm (the chart in the repository)',
    );
  }
}

/** Refuses a plugin config (inline text or file content) that would inflate a Helm chart. */
function checkPluginConfig(text: string, field: string, entry: string, refuse: Refuse): void {
  for (const doc of parseAllDocuments(text)) {
    const value: unknown = doc.errors.length === 0 ? doc.toJS() : undefined;
    if (
      typeof value === 'object' &&
      value !== null &&
      (value as Kustomization)['kind'] === 'HelmChartInflationGenerator'
    ) {
      refuse(field, entry.split('\n')[0] ?? '', 'is a HelmChartInflationGenerator: kustomize would fetch the chart');
    }
  }
}

/** The parsed kustomization in `dir` and its file name, or undefined when `dir` has none. */
async function readKustomization(dir: string): Promise<{ path: string; k: Kustomization } | undefined> {
  for (const name of KUSTOMIZATION_FILES) {
    const path = join(dir, name);
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    let parsed: unknown;
    try {
      parsed = parseAllDocuments(text)[0]?.toJS();
    } catch {
      // kustomize itself reports the broken kustomization (with the repo-relative name: see reason()).
    }
    return { path, k: typeof parsed === 'object' && parsed !== null ? (parsed as Kustomization) : {} };
  }
  return undefined;
}

/**
 * Walks the kustomization graph rooted at `dir` (inside the checkout `root`) the way `kustomize build` would read
 * it and resolves with the files it names. Rejects with KustomizationRefused for the first entry the policy in the
 * module comment refuses. Reads only files inside `root`; never touches the network.
 */
export async function checkKustomization(root: string, dir: string): Promise<KustomizationGraph> {
  const realRoot = await resolveInside(root, '.');
  const walk = new Walk(realRoot);
  await walk.visit(await resolveInside(realRoot, relative(realRoot, dir)));
  return { kustomizations: walk.kustomizations, files: [...walk.files] };
}

/** One walk of a kustomization graph inside the checkout `root` (see checkKustomization). */
class Walk {
  readonly kustomizations: string[] = [];
  readonly files = new Set<string>();
  readonly #visited = new Set<string>();
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  /** Reads the kustomization in `kdir` (if any, once) and follows its entries. */
  async visit(kdir: string): Promise<void> {
    if (this.#visited.has(kdir)) return;
    this.#visited.add(kdir);
    const found = await readKustomization(kdir);
    if (!found) return;
    this.kustomizations.push(found.path);
    const file = relative(this.#root, found.path);
    const refuse: Refuse = (field, entry, why) => {
      throw new KustomizationRefused(file, field, entry, why);
    };
    for (const e of entriesOf(found.k, refuse)) await this.#follow(kdir, e, file, refuse);
  }

  /** One entry: a directory another kustomization (where one may be), a file to remember (a plugin config checked). */
  async #follow(kdir: string, e: Entry, file: string, refuse: Refuse): Promise<void> {
    const real = await resolveEntry(this.#root, kdir, e, file, refuse);
    if ((await stat(real)).isDirectory()) {
      if (e.kustomizationDir) await this.visit(real);
      else refuse(e.field, e.value, 'is a directory, not a file');
      return;
    }
    this.files.add(real);
    if (e.pluginConfig) checkPluginConfig(await readFile(real, 'utf8'), e.field, e.value, refuse);
  }
}

/**
 * Where an entry of the kustomization in `kdir` (the file `file`) leads: a real path inside the repository. Refuses
 * remote references, absolute paths and paths that leave the repository (by `..` or a symlink); a missing path is a
 * broken manifest.
 */
async function resolveEntry(realRoot: string, kdir: string, e: Entry, file: string, refuse: Refuse): Promise<string> {
  if (isRemoteReference(e.value)) {
    refuse(e.field, e.value, 'is a remote reference: svc builds kustomizations only from the App repository');
  }
  if (isAbsolute(e.value)) refuse(e.field, e.value, 'is an absolute path: only paths inside the repository');
  try {
    return await resolveInside(realRoot, relative(realRoot, join(kdir, e.value)));
  } catch (err) {
    const text = err instanceof Error ? err.message : '';
    if (text.includes('symlink')) refuse(e.field, e.value, 'escapes the repository through a symlink');
    if (text.includes('escapes')) refuse(e.field, e.value, 'resolves outside the repository');
    // Not remote-shaped (checked above) and missing: kustomize would fail on it too; a commit can add it, so
    // this is a broken manifest (retried at the error period), not a refusal.
    throw new ManifestError(file, `${e.field} entry "${e.value}" does not exist in the repository`);
  }
}
