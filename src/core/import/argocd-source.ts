/**
 * The single source of an Argo CD Application (`spec.source`) as an svc source: a `chart` from a Helm or OCI
 * repository becomes a HelmChart source; anything else a Git source (path, branch, and its helm, kustomize or
 * directory options). Every field is noted in the ledger; what makes the App impossible is returned as a blocker.
 */
import type { GitSource, HelmChartSource } from '../app-schema.ts';
import { repoURLProblem } from '../app-state.ts';
import { flattenValues, mergeValues, parseValues, setPath } from './helm-values.ts';
import type { FieldLedger } from './ledger.ts';
import type { AppPayload } from './types.ts';

const S = 'spec.source';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const COMMIT = /^[0-9a-f]{40}$/i;
/** A version tag or range (v1.2.3, 1.2.*, >=1.0): svc Git sources follow branches, not tags. */
const VERSION_LIKE = /^(v?\d+\.\d+|[~^<>=*])/;

/** The source, or the reasons the App cannot be made. */
export type SourceResult = { source: AppPayload['source']; blockers: [] } | { blockers: string[] };

/** Maps `spec.source`. */
export function mapArgoSource(l: FieldLedger): SourceResult {
  if (typeof l.get(`${S}.repoURL`) !== 'string') return { blockers: ['spec.source.repoURL is missing'] };
  if (l.get(`${S}.plugin`) !== undefined) {
    l.unsupported(`${S}.plugin`, 'svc renders Raw, Kustomize and Helm only: no config management plugins');
    // The rest of the source is moot without its renderer: the reason says why.
    for (const field of ['repoURL', 'path', 'targetRevision']) l.take(`${S}.${field}`);
    return { blockers: ['a config management plugin (spec.source.plugin) renders it: svc has no plugins'] };
  }
  l.equivalent(`${S}.name`, 'a source name only matters between the sources of a multi-source Application');
  return typeof l.get(`${S}.chart`) === 'string' ? chartSource(l) : gitSource(l);
}

/** `chart` + `repoURL` (an http(s) Helm repository, or an OCI registry written without its scheme). */
function chartSource(l: FieldLedger): SourceResult {
  const url = l.str(`${S}.repoURL`) ?? '';
  const repoURL = /^[a-z]+:\/\//i.test(url) ? url : `oci://${url}`;
  l.mapped(`${S}.repoURL`, 'source.helmChart.repoURL', repoURL === url ? undefined : `as ${repoURL} (OCI)`);
  const chart: HelmChartSource = { repoURL, chart: String(l.mapped(`${S}.chart`, 'source.helmChart.chart')) };
  const version = l.str(`${S}.targetRevision`);
  if (version && version !== 'HEAD' && version !== '*') {
    l.mapped(`${S}.targetRevision`, 'source.helmChart.version');
    chart.version = version;
  } else {
    l.equivalent(`${S}.targetRevision`, 'the newest chart version (svc default *)');
  }
  const valuesFiles = l.get(`${S}.helm.valueFiles`);
  if (Array.isArray(valuesFiles) && valuesFiles.length > 0) {
    if (valuesFiles.some((f) => typeof f !== 'string' || f.startsWith('$'))) {
      l.unsupported(`${S}.helm.valueFiles`, 'values files from another source ($ref/…) need a multi-source App');
    } else {
      l.mapped(`${S}.helm.valueFiles`, 'source.helmChart.valuesFiles');
      chart.valuesFiles = valuesFiles as string[];
    }
  }
  const values = helmValues(l, 'source.helmChart.values');
  if (values && Object.keys(values).length > 0) chart.values = values;
  const release = l.mapped(`${S}.helm.releaseName`, 'source.helmChart.releaseName');
  if (typeof release === 'string') chart.releaseName = release;
  const ns = l.mapped(`${S}.helm.namespace`, 'source.helmChart.namespace');
  if (typeof ns === 'string') chart.namespace = ns;
  helmUnsupported(l);
  return { source: { type: 'HelmChart', helmChart: chart }, blockers: [] };
}

/** `helm.values` (text), `valuesObject` and `parameters`, merged in Argo CD's order; noted in the ledger. */
function helmValues(l: FieldLedger, to: string): Record<string, unknown> | undefined {
  let values: Record<string, unknown> = {};
  const text = l.get(`${S}.helm.values`);
  if (typeof text === 'string') {
    const parsed = parseValues(text);
    if (parsed) {
      l.mapped(`${S}.helm.values`, to);
      values = mergeValues(values, parsed);
    } else l.unsupported(`${S}.helm.values`, 'not a YAML mapping');
  }
  const object = l.get(`${S}.helm.valuesObject`);
  if (isObject(object)) {
    l.mapped(`${S}.helm.valuesObject`, to);
    values = mergeValues(values, object);
  }
  parameters(l, values, to);
  return values;
}

/** `helm.parameters`, each set into `values` by its path (as a string). */
function parameters(l: FieldLedger, values: Record<string, unknown>, to: string): void {
  const params = l.get(`${S}.helm.parameters`);
  l.take(`${S}.helm.parameters`);
  for (const p of Array.isArray(params) ? params : []) {
    const name = isObject(p) && typeof p['name'] === 'string' ? p['name'] : '';
    const label = `${S}.helm.parameters[${name}]`;
    if (isObject(p) && setPath(values, name, String(p['value'] ?? ''))) {
      l.item(label, 'mapped', { to, note: 'set as a string value' });
    } else l.item(label, 'unsupported', { note: 'a parameter path with list indices cannot be carried over' });
  }
}

/** Helm options svc does not have. */
function helmUnsupported(l: FieldLedger): void {
  const why: Record<string, string> = {
    fileParameters: 'svc cannot set a value from a file',
    skipCrds: 'svc always renders the chart’s CRDs',
    skipSchemaValidation: 'svc always validates values against the chart’s schema',
    skipTests: 'svc does not render test hooks differently',
    passCredentials: 'svc sends credentials only to the repository they were registered for',
    ignoreMissingValueFiles: 'a missing values file fails the sync in svc',
    version: 'svc runs one Helm version',
    kubeVersion: 'svc renders with the destination’s Kubernetes version',
    apiVersions: 'svc renders with the destination’s API versions',
  };
  for (const [field, note] of Object.entries(why)) l.unsupported(`${S}.helm.${field}`, note);
}

/** A Git source: repoURL, branch (targetRevision), path, and the tool options that select the manifest type. */
function gitSource(l: FieldLedger): SourceResult {
  const repoURL = l.str(`${S}.repoURL`) ?? '';
  const problem = repoURLProblem(repoURL);
  if (problem) return { blockers: [problem.replace('source.git', 'spec.source')] };
  l.mapped(`${S}.repoURL`, 'source.git.repoURL');
  const git: Partial<GitSource> & { repoURL: string } = { repoURL };
  // Every field is read even when one blocks, so the report lists them all.
  const path = l.mapped(`${S}.path`, 'source.git.path');
  if (typeof path === 'string' && path !== '' && path !== '.') git.path = path;
  const blockers = [branchOf(l, git), gitTool(l, git)].filter((b): b is string => b !== undefined);
  if (blockers.length > 0) return { blockers };
  return { source: { type: 'Git', git }, blockers: [] };
}

/** targetRevision → branch; a commit or a version is a blocker (svc follows the head of a branch). */
function branchOf(l: FieldLedger, git: Partial<GitSource>): string | undefined {
  const rev = l.str(`${S}.targetRevision`) ?? 'HEAD';
  if (rev === 'HEAD' || rev === '') {
    l.item(`${S}.targetRevision`, 'unsupported', {
      note: 'HEAD (the default branch): svc follows a named branch, main unless source.git.branch is set',
    });
    l.take(`${S}.targetRevision`);
    return undefined;
  }
  if (COMMIT.test(rev) || VERSION_LIKE.test(rev)) {
    l.unsupported(`${S}.targetRevision`, 'a commit or a tag: svc Git sources follow the head of a branch');
    return 'spec.source.targetRevision pins a commit or a tag: svc Git sources follow a branch (create the App on its branch, then roll back to the revision)';
  }
  l.mapped(`${S}.targetRevision`, 'source.git.branch', 'taken as a branch name');
  git.branch = rev;
  return undefined;
}

/** helm, kustomize and directory options; a blocker for jsonnet. */
function gitTool(l: FieldLedger, git: Partial<GitSource>): string | undefined {
  if (isObject(l.get(`${S}.helm`))) {
    git.manifestType = 'Helm';
    git.helm = gitHelm(l);
  } else if (isObject(l.get(`${S}.kustomize`))) {
    git.manifestType = 'Kustomize';
    git.kustomize = gitKustomize(l);
  } else if (isObject(l.get(`${S}.directory`))) {
    if (isObject(l.get(`${S}.directory.jsonnet`)) && Object.keys(l.get(`${S}.directory.jsonnet`) as object).length) {
      l.unsupported(`${S}.directory.jsonnet`, 'svc does not render Jsonnet');
      return 'spec.source.directory.jsonnet: svc does not render Jsonnet';
    }
    l.take(`${S}.directory.jsonnet`);
    git.manifestType = 'Raw';
    if (l.get(`${S}.directory.recurse`) === true) {
      l.equivalent(`${S}.directory.recurse`, 'svc reads subdirectories of a Raw path');
    } else {
      l.item(`${S}.directory.recurse`, 'unsupported', {
        note: 'svc reads subdirectories too (Argo CD does not by default)',
      });
      l.take(`${S}.directory.recurse`);
    }
    l.unsupported(`${S}.directory.include`, 'svc reads every .yaml, .yml and .json file');
    l.unsupported(`${S}.directory.exclude`, 'svc reads every .yaml, .yml and .json file');
  }
  return undefined;
}

function gitHelm(l: FieldLedger): NonNullable<GitSource['helm']> {
  const helm: NonNullable<GitSource['helm']> = {};
  const files = l.get(`${S}.helm.valueFiles`);
  if (Array.isArray(files) && files.length > 0 && typeof files[0] === 'string') {
    helm.valuesFile = files[0];
    l.take(`${S}.helm.valueFiles`);
    l.item(`${S}.helm.valueFiles[0]`, 'mapped', { to: 'source.git.helm.valuesFile' });
    for (const f of files.slice(1)) {
      l.item(`${S}.helm.valueFiles[${String(f)}]`, 'unsupported', {
        note: 'svc takes one values file for a chart in Git',
      });
    }
  }
  const values = helmValues(l, 'source.git.helm.inlineValues');
  // Argo CD's parameters and values set typed values; a chart in Git takes strings (--set-string).
  if (values && Object.keys(values).length > 0) {
    const flat = flattenValues(values);
    if (flat) helm.inlineValues = flat;
    else {
      // The values were noted as mapped: they are not, as a whole.
      for (const n of l.notes.filter((x) => x.to === 'source.git.helm.inlineValues')) {
        Object.assign(n, { status: 'unsupported', note: 'values with lists cannot be passed as --set-string pairs' });
        delete n.to;
      }
    }
  }
  const release = l.mapped(`${S}.helm.releaseName`, 'source.git.helm.releaseName');
  if (typeof release === 'string') helm.releaseName = release;
  const ns = l.mapped(`${S}.helm.namespace`, 'source.git.helm.namespace');
  if (typeof ns === 'string') helm.namespace = ns;
  helmUnsupported(l);
  return helm;
}

function gitKustomize(l: FieldLedger): NonNullable<GitSource['kustomize']> {
  const k: NonNullable<GitSource['kustomize']> = {};
  const images = l.mapped(`${S}.kustomize.images`, 'source.git.kustomize.images');
  if (Array.isArray(images)) k.images = images.map(String);
  const prefix = l.mapped(`${S}.kustomize.namePrefix`, 'source.git.kustomize.namePrefix');
  if (typeof prefix === 'string') k.namePrefix = prefix;
  const components = l.mapped(`${S}.kustomize.components`, 'source.git.kustomize.components');
  if (Array.isArray(components)) k.components = components.map(String);
  for (const field of [
    'nameSuffix',
    'commonLabels',
    'commonAnnotations',
    'commonAnnotationsEnvsubst',
    'forceCommonLabels',
    'forceCommonAnnotations',
    'labelWithoutSelector',
    'namespace',
    'replicas',
    'patches',
    'version',
    'kubeVersion',
    'apiVersions',
    'ignoreMissingComponents',
  ]) {
    l.unsupported(`${S}.kustomize.${field}`, 'svc has no such kustomize option: put it in the kustomization file');
  }
  return k;
}
