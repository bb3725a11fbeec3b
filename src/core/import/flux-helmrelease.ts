/**
 * A Flux `HelmRelease` (helm.toolkit.fluxcd.io) as an svc App: a chart from a HelmRepository or an OCIRepository
 * becomes a HelmChart source (repoURL, chart, version, valuesFiles, values, releaseName); a chart in a
 * GitRepository becomes a Git source of manifest type Helm. Helm actions' tuning (install, upgrade, rollback,
 * test), drift detection and post-renderers have no svc field and are listed.
 */

import type { GitSource, HelmChartSource } from '../app-schema.ts';
import { type MapContext, refOf } from './context.ts';
import { becameEntry, unmappedEntry } from './entry.ts';
import { fluxPath, gitOf, helmRepositoryURL, ociChartOf, resolveRef } from './flux-source-ref.ts';
import { flattenValues } from './helm-values.ts';
import { FieldLedger } from './ledger.ts';
import type { AppPayload, Doc, ImportEntry } from './types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
type Source = AppPayload['source'];
type Used = { kind: string; namespace: string | undefined; name: string };

/** Maps a HelmRelease. */
export function mapHelmRelease(doc: Doc, ctx: MapContext): ImportEntry {
  const object = refOf(doc);
  const l = new FieldLedger(doc);
  const blockers: string[] = [];
  l.metadataExtras('svc Apps carry no labels or annotations of yours');
  const picked = sourceOf(l, object.namespace, ctx, blockers);
  if (l.get('spec.kubeConfig') !== undefined) {
    l.unsupported('spec.kubeConfig', 'not a cluster registered in svc');
    blockers.push(
      'it deploys to another cluster (spec.kubeConfig): register that cluster in svc, then create the App there',
    );
  }
  const namespace = (l.str('spec.targetNamespace') ?? object.namespace) || '';
  l.mapped('spec.targetNamespace', 'namespace');
  if (namespace === '') blockers.push('no spec.targetNamespace and no namespace: an svc App deploys to one namespace');
  const suspended = l.get('spec.suspend') === true;
  l.mapped('spec.suspend', 'sync_policy.automated', 'suspended: automated sync off');
  l.equivalent('spec.interval', 'svc checks the chart repository on every resync');
  unsupported(l);
  if (blockers.length > 0 || !picked) return unmappedEntry(l, object, blockers.join('; '));
  const name = ctx.namer.take('App', object.name);
  ctx.use(picked.used.kind, picked.used.namespace, picked.used.name, { kind: 'App', name });
  fluxReleaseName(picked.source, l.str('spec.targetNamespace'), object.name);
  // Helm removes what left the chart on upgrade: prune keeps that behaviour.
  const app: AppPayload = {
    name,
    namespace,
    source: picked.source,
    sync_policy: { automated: !suspended, prune: true, selfHeal: false },
  };
  return becameEntry(l, object, object.name, { kind: 'App', name }, { app });
}

/**
 * helm-controller's own release name when `spec.releaseName` is absent: `<targetNamespace>-<name>` (up to 53
 * characters; longer, Flux shortens it with a hash svc does not copy). The same name renders the same objects, so a
 * take-over finds the workloads Flux made instead of creating others.
 */
function fluxReleaseName(source: Source, targetNamespace: string | undefined, name: string): void {
  if (!targetNamespace) return;
  const release = `${targetNamespace}-${name}`;
  if (release.length > 53) return;
  if (source.type === 'HelmChart') source.helmChart.releaseName ??= release;
  else if (source.type === 'Git' && source.git.helm) source.git.helm.releaseName ??= release;
}

/** The source from `spec.chart.spec.sourceRef` or `spec.chartRef`. */
function sourceOf(
  l: FieldLedger,
  namespace: string | undefined,
  ctx: MapContext,
  blockers: string[],
): { source: Source; used: Used } | undefined {
  const viaChartRef = l.get('spec.chartRef') !== undefined;
  const refPath = viaChartRef ? 'spec.chartRef' : 'spec.chart.spec.sourceRef';
  const ref = resolveRef(l.get(refPath), namespace, ctx);
  if ('blocker' in ref) {
    l.unsupported(refPath, ref.blocker);
    blockers.push(ref.blocker);
    return undefined;
  }
  const used = { kind: ref.kind, namespace: ref.namespace, name: ref.name };
  const via = `from ${ref.kind} ${ref.name}`;
  if (ref.kind === 'HelmRepository') {
    const chart: HelmChartSource = {
      repoURL: helmRepositoryURL(ref.doc),
      chart: String(l.get('spec.chart.spec.chart') ?? ''),
    };
    l.mapped(refPath, 'source.helmChart.repoURL', via);
    l.mapped('spec.chart.spec.chart', 'source.helmChart.chart');
    const version = l.mapped('spec.chart.spec.version', 'source.helmChart.version');
    if (typeof version === 'string') chart.version = version;
    chartCommon(l, chart);
    return { source: { type: 'HelmChart', helmChart: chart }, used };
  }
  if (ref.kind === 'OCIRepository' && viaChartRef) {
    const oci = ociChartOf(ref.doc);
    if ('blocker' in oci) {
      blockers.push(oci.blocker);
      return undefined;
    }
    l.mapped(refPath, 'source.helmChart.repoURL, chart, version', via);
    const chart: HelmChartSource = { ...oci };
    chartCommon(l, chart);
    return { source: { type: 'HelmChart', helmChart: chart }, used };
  }
  if (ref.kind === 'GitRepository' && !viaChartRef) return gitChart(l, ref.doc, via, used, blockers);
  l.unsupported(refPath, `svc cannot read a chart from a ${ref.kind}`);
  blockers.push(`its chart comes from a ${ref.kind}: svc reads charts from Helm repositories, OCI registries and Git`);
  return undefined;
}

/** valuesFiles, values, releaseName of a HelmChart source. */
function chartCommon(l: FieldLedger, chart: HelmChartSource): void {
  const files = l.mapped('spec.chart.spec.valuesFiles', 'source.helmChart.valuesFiles');
  if (Array.isArray(files)) chart.valuesFiles = files.map(String);
  const values = l.mapped('spec.values', 'source.helmChart.values');
  if (isObject(values)) chart.values = values;
  const release = l.mapped('spec.releaseName', 'source.helmChart.releaseName');
  if (typeof release === 'string') chart.releaseName = release;
}

/** A chart at a path of a GitRepository: a Git source of manifest type Helm. */
function gitChart(
  l: FieldLedger,
  doc: Doc,
  via: string,
  used: Used,
  blockers: string[],
): { source: Source; used: Used } | undefined {
  const from = gitOf(doc);
  if ('blocker' in from) {
    blockers.push(from.blocker);
    return undefined;
  }
  l.mapped('spec.chart.spec.sourceRef', 'source.git.repoURL, source.git.branch', via);
  const git: Partial<GitSource> & { repoURL: string } = {
    repoURL: from.repoURL,
    branch: from.branch,
    manifestType: 'Helm',
  };
  const path = fluxPath(l.mapped('spec.chart.spec.chart', 'source.git.path'));
  if (path) git.path = path;
  const helm: NonNullable<GitSource['helm']> = {};
  const files = l.get('spec.chart.spec.valuesFiles');
  if (Array.isArray(files) && typeof files[0] === 'string') {
    helm.valuesFile = files[0];
    l.take('spec.chart.spec.valuesFiles');
    l.item('spec.chart.spec.valuesFiles[0]', 'mapped', { to: 'source.git.helm.valuesFile' });
    for (const f of files.slice(1)) {
      l.item(`spec.chart.spec.valuesFiles[${String(f)}]`, 'unsupported', {
        note: 'svc takes one values file for a chart in Git',
      });
    }
  }
  const values = l.get('spec.values');
  const flat = isObject(values) ? flattenValues(values) : undefined;
  if (flat) {
    l.mapped('spec.values', 'source.git.helm.inlineValues', 'passed as strings (--set-string)');
    helm.inlineValues = flat;
  } else l.unsupported('spec.values', 'values with lists cannot be passed as --set-string pairs');
  const release = l.mapped('spec.releaseName', 'source.git.helm.releaseName');
  if (typeof release === 'string') helm.releaseName = release;
  if (Object.keys(helm).length > 0) git.helm = helm;
  return { source: { type: 'Git', git }, used };
}

function unsupported(l: FieldLedger): void {
  const why: Record<string, string> = {
    'chart.spec.reconcileStrategy': 'svc deploys a chart version by its digest',
    'chart.spec.interval': 'svc checks the chart repository on every resync',
    'chart.spec.verify': 'svc does not verify chart signatures',
    valuesFrom: 'svc takes values from the App only (source.helmChart.values)',
    storageNamespace: 'svc keeps no Helm release records',
    install: 'svc applies the rendered chart server-side; Helm install options do not apply',
    upgrade: 'svc applies the rendered chart server-side; Helm upgrade options do not apply',
    rollback: 'roll back with svc app rollback',
    uninstall: 'deleting an svc App deletes its objects',
    test: 'svc does not run Helm tests',
    driftDetection: 'svc records selfHeal but does not act on drift yet',
    postRenderers: 'svc applies the chart as rendered: no post-renderers',
    dependsOn: 'svc Apps sync independently: order them with sync waves inside one App',
    serviceAccountName: 'svc applies with its own identity, scoped by role bindings',
    maxHistory: 'svc keeps the last 50 revisions',
    timeout: 'svc bounds each sync itself',
    persistentClient: 'not applicable to svc',
    commonMetadata: 'svc sets its own labels on the objects',
  };
  for (const [field, note] of Object.entries(why)) l.unsupported(`spec.${field}`, note);
}
