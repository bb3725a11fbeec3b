/**
 * The generators of an Argo CD ApplicationSet as svc AppSet generators (docs/migrate.md "Argo CD ApplicationSet"),
 * field by field: `list`, `clusters`, `git` (directories → `gitDirectories`, files → `gitFiles`), `matrix` and
 * `merge` of two stand-alone generators. What svc cannot generate the same way (scmProvider, pullRequest,
 * clusterDecisionResource, plugin generators, per-generator templates, post-selectors, file excludes, cluster
 * `matchExpressions`) is a blocker: an AppSet that generated other Apps than Argo CD's would not be a migration.
 */
import type { Generator, LeafGenerator } from '../appset-schema.ts';
import { FieldLedger } from './ledger.ts';
import type { FieldNote } from './types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const COMMIT = /^[0-9a-f]{40}$/i;
const VERSION_LIKE = /^(v?\d+\.\d+|[~^<>=*])/;

/** Generators svc has no counterpart of, and why. */
const UNSUPPORTED_KINDS: Record<string, string> = {
  scmProvider: 'svc does not discover repositories of an SCM organization: list them with a list generator',
  pullRequest: 'svc has no pull request generator (no preview environments per pull request yet)',
  clusterDecisionResource: 'svc selects clusters by their labels (clusters generator), not by a decision resource',
  plugin: 'svc has no generator plugins',
};

/** What mapping the generators gave: svc generators, the notes (prefixed), and the blockers. */
export interface GeneratorsResult {
  generators: Generator[];
  notes: FieldNote[];
  blockers: string[];
}

/** One generator's ledger, prefixed, with its blockers. */
class GenScope {
  readonly l: FieldLedger;
  readonly blockers: string[] = [];
  readonly prefix: string;

  constructor(value: Record<string, unknown>, prefix: string) {
    this.l = new FieldLedger(value);
    this.prefix = prefix;
  }

  /** Notes `path` unsupported and records a blocker naming it. */
  block(path: string, note: string): void {
    if (this.l.get(path) === undefined) return;
    this.l.unsupported(path, note);
    this.blockers.push(`${this.prefix}.${path}: ${note}`);
  }

  notes(): FieldNote[] {
    return this.l.finish().map((n) => ({ ...n, field: `${this.prefix}.${n.field}` }));
  }
}

/** Maps `spec.generators`. */
export function mapGenerators(value: unknown): GeneratorsResult {
  const out: GeneratorsResult = { generators: [], notes: [], blockers: [] };
  const list = Array.isArray(value) ? value : [];
  if (list.length === 0) out.blockers.push('spec.generators is empty');
  for (const [i, g] of list.entries()) {
    const scope = new GenScope(isObject(g) ? g : {}, `spec.generators[${i}]`);
    const generator = topLevel(scope);
    out.notes.push(...scope.notes());
    out.blockers.push(...scope.blockers);
    if (generator) out.generators.push(generator);
  }
  return out;
}

function topLevel(s: GenScope): Generator | undefined {
  for (const kind of ['matrix', 'merge'] as const) {
    if (isObject(s.l.get(kind))) return combined(s, kind);
  }
  return leaf(s);
}

/** `matrix` or `merge` of two stand-alone generators. */
function combined(s: GenScope, kind: 'matrix' | 'merge'): Generator | undefined {
  const children = s.l.get(`${kind}.generators`);
  s.l.take(`${kind}.generators`);
  const list = Array.isArray(children) ? children : [];
  if (list.length !== 2) {
    s.blockers.push(`${s.prefix}.${kind}.generators: svc combines exactly two generators (found ${list.length})`);
  }
  const leaves = childrenOf(s, kind, list);
  if (kind === 'matrix') {
    s.l.item('matrix.generators', 'mapped', { to: 'matrix.generators' });
    s.block('selector', 'svc has no post-selector on generated parameters');
    return leaves.length === 2 ? { matrix: { generators: leaves } } : undefined;
  }
  const keys = s.l.mapped('merge.mergeKeys', 'merge.mergeKeys');
  s.l.item('merge.generators', 'mapped', { to: 'merge.generators' });
  s.block('selector', 'svc has no post-selector on generated parameters');
  if (!Array.isArray(keys) || keys.length === 0) s.blockers.push(`${s.prefix}.merge.mergeKeys is missing`);
  if (leaves.length !== 2 || !Array.isArray(keys)) return undefined;
  return { merge: { mergeKeys: keys.map(String), generators: leaves } };
}

/** The stand-alone children of a matrix or merge; their notes and blockers go to the parent's scope. */
function childrenOf(s: GenScope, kind: 'matrix' | 'merge', list: unknown[]): LeafGenerator[] {
  const leaves: LeafGenerator[] = [];
  for (const [i, child] of list.entries()) {
    const cs = new GenScope(isObject(child) ? child : {}, `${s.prefix}.${kind}.generators[${i}]`);
    const nested = ['matrix', 'merge'].find((k) => cs.l.get(k) !== undefined);
    const g = nested ? undefined : leaf(cs);
    if (nested) cs.block(nested, `svc combines two stand-alone generators: a ${nested} inside a ${kind} is not built`);
    s.l.notes.push(...cs.notes().map((n) => ({ ...n, field: n.field.slice(s.prefix.length + 1) })));
    s.blockers.push(...cs.blockers);
    if (g) leaves.push(g as LeafGenerator);
  }
  return leaves;
}

/** A stand-alone generator (list, clusters, git); undefined with a blocker otherwise. */
function leaf(s: GenScope): Generator | undefined {
  for (const [kind, why] of Object.entries(UNSUPPORTED_KINDS)) s.block(kind, why);
  s.block('selector', 'svc has no post-selector on generated parameters');
  if (isObject(s.l.get('list'))) return listGenerator(s);
  if (isObject(s.l.get('clusters'))) return clustersGenerator(s);
  if (isObject(s.l.get('git'))) return gitGenerator(s);
  if (s.blockers.length === 0) s.blockers.push(`${s.prefix}: no generator svc knows`);
  return undefined;
}

/** Argo CD list elements are objects of any values; svc's are string maps: nested values flattened (`a.b`). */
function flattenElement(value: unknown, key: string, out: Record<string, string>): void {
  if (value === null || value === undefined) return;
  if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) flattenElement(v, key ? `${key}.${k}` : k, out);
    return;
  }
  out[key] = typeof value === 'string' ? value : JSON.stringify(value);
}

function listGenerator(s: GenScope): Generator | undefined {
  s.block('list.elementsYaml', 'svc takes list elements as a list, not as YAML text in a string');
  s.block('list.template', 'svc has no per-generator template: one template makes every App');
  const elements = s.l.get('list.elements');
  if (!Array.isArray(elements)) {
    s.blockers.push(`${s.prefix}.list.elements is missing`);
    return undefined;
  }
  const mapped = elements.map((e) => {
    const out: Record<string, string> = {};
    flattenElement(e, '', out);
    return out;
  });
  const nested = elements.some((e) => isObject(e) && Object.values(e).some((v) => typeof v !== 'string'));
  s.l.mapped(
    'list.elements',
    'list.elements',
    nested ? 'values that are not strings are written as text; nested objects as dotted keys (a.b)' : undefined,
  );
  return { list: { elements: mapped } };
}

/** The label every Argo CD cluster Secret carries: every svc registered cluster is one. */
const CLUSTER_SECRET_LABEL = 'argocd.argoproj.io/secret-type';

function clustersGenerator(s: GenScope): Generator {
  s.block('clusters.selector.matchExpressions', 'svc selects clusters by matchLabels only');
  s.block('clusters.template', 'svc has no per-generator template: one template makes every App');
  s.block('clusters.flatList', 'svc makes one parameter set per cluster');
  s.l.unsupported(
    'clusters.values',
    'svc clusters give name, nameNormalized and metadata.labels.<key> only: a template reading values.<key> is refused',
  );
  const labels = s.l.get('clusters.selector.matchLabels');
  const matchLabels: Record<string, string> = {};
  for (const [k, v] of Object.entries(isObject(labels) ? labels : {})) {
    if (k === CLUSTER_SECRET_LABEL && v === 'cluster') {
      s.l.item(`clusters.selector.matchLabels["${k}"]`, 'equivalent', {
        note: 'every cluster registered in svc is one (the management cluster is not selected, as in Argo CD)',
      });
    } else {
      matchLabels[k] = String(v);
      s.l.item(`clusters.selector.matchLabels["${k}"]`, 'mapped', { to: `clusters.selector.matchLabels["${k}"]` });
    }
  }
  s.l.take('clusters.selector.matchLabels');
  s.l.take('clusters.selector');
  const selected = isObject(labels) && Object.keys(labels).length > 0;
  const selector = Object.keys(matchLabels).length > 0 ? { selector: { matchLabels } } : {};
  if (!selected) {
    s.l.item('clusters', 'mapped', {
      to: 'clusters.includeManagement',
      note: 'every cluster, and the management cluster (Argo CD’s in-cluster; its svc name is empty)',
    });
  }
  s.l.take('clusters');
  const clusters: NonNullable<LeafGenerator['clusters']> = selected ? selector : {};
  if (!selected) clusters.includeManagement = true;
  return { clusters };
}

function gitGenerator(s: GenScope): Generator | undefined {
  const repoURL = s.l.mapped('git.repoURL', 'repoURL');
  s.block('git.pathParamPrefix', 'svc names the path parameters path, path.basename, …: no prefix');
  s.block('git.template', 'svc has no per-generator template: one template makes every App');
  s.l.unsupported('git.values', 'svc git generators give path and file parameters only');
  s.l.equivalent('git.requeueAfterSeconds', 'svc reads the repository every 60 s');
  if (typeof repoURL !== 'string') {
    s.blockers.push(`${s.prefix}.git.repoURL is missing`);
    return undefined;
  }
  const location: { repoURL: string; revision?: string } = { repoURL };
  const revision = s.l.str('git.revision') ?? 'HEAD';
  s.l.take('git.revision');
  if (revision === 'HEAD' || revision === '') {
    s.l.item('git.revision', 'unsupported', {
      note: 'HEAD (the default branch): svc reads main unless revision is set',
    });
  } else if (COMMIT.test(revision) || VERSION_LIKE.test(revision)) {
    s.block('git.revision', 'a commit or a tag: svc generators read the head of a branch');
  } else {
    s.l.item('git.revision', 'mapped', { to: 'revision', note: 'taken as a branch name' });
    location.revision = revision;
  }
  const dirs = s.l.get('git.directories');
  const files = s.l.get('git.files');
  s.l.take('git.directories');
  s.l.take('git.files');
  if (Array.isArray(dirs)) {
    s.l.item('git.directories', 'mapped', { to: 'gitDirectories.directories' });
    const directories = dirs.filter(isObject).map((d) => ({
      path: String(d['path'] ?? ''),
      ...(d['exclude'] === true ? { exclude: true } : {}),
    }));
    return { gitDirectories: { ...location, directories } };
  }
  if (Array.isArray(files)) {
    const excluded = files.filter((f) => isObject(f) && f['exclude'] === true);
    if (excluded.length > 0) {
      s.l.item('git.files[exclude]', 'unsupported', { note: 'svc gitFiles generators have no exclude' });
      s.blockers.push(`${s.prefix}.git.files: an excluded file pattern: svc gitFiles generators have no exclude`);
    }
    s.l.item('git.files', 'mapped', { to: 'gitFiles.files' });
    const paths = files.filter((f) => isObject(f) && f['exclude'] !== true).map((f) => ({ path: String(f['path']) }));
    return { gitFiles: { ...location, files: paths } };
  }
  s.blockers.push(`${s.prefix}.git: neither directories nor files`);
  return undefined;
}
