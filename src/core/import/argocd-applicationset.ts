/**
 * An Argo CD `ApplicationSet` as an svc AppSet create payload (docs/migrate.md "Argo CD ApplicationSet"; svc AppSets:
 * docs/appsets.md): its generators (./argocd-appset-generators.ts), its Application template mapped as an Application
 * is (./argocd-application.ts) with Argo CD's placeholders in svc's syntax (./argocd-placeholders.ts), the
 * destination as an svc cluster, and its sync policy. What svc cannot do the same way is reported field by field;
 * what would make other Apps than Argo CD's (a generator svc lacks, a Go template function) makes it unmapped.
 */

import { appSetProblems } from '../appset-rules.ts';
import { type AppSetSpec, AppSetSpecSchema, type AppTemplate } from '../appset-schema.ts';
import { placeholdersIn } from '../appset-template.ts';
import { schemaProblems } from '../validator.ts';
import { mapApplication } from './argocd-application.ts';
import { mapGenerators } from './argocd-appset-generators.ts';
import { translateDeep } from './argocd-placeholders.ts';
import { contextOf, type MapContext, refOf } from './context.ts';
import { becameEntry, unmappedEntry } from './entry.ts';
import { FieldLedger } from './ledger.ts';
import type { AppSetPayload, Doc, FieldNote, ImportEntry } from './types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const IN_CLUSTER = new Set(['https://kubernetes.default.svc', 'https://kubernetes.default.svc:443', 'in-cluster']);
/** A string that is one placeholder and nothing else, in svc's syntax. */
const WHOLE_PLACEHOLDER = /^\{\{ ([^ ]+) \}\}$/;
const T = 'spec.template';

/** Maps an ApplicationSet. */
export function mapApplicationSet(doc: Doc, ctx: MapContext): ImportEntry {
  const object = refOf(doc);
  const l = new FieldLedger(doc);
  const goTemplate = l.get('spec.goTemplate') === true;
  templateMode(l, goTemplate);
  const gens = mapGenerators(l.get('spec.generators'));
  l.take('spec.generators');
  l.notes.push(...gens.notes);
  const blockers = [...gens.blockers];
  const template = mapTemplate(l, goTemplate, gens.generators, ctx, blockers);
  const syncPolicy = appSetSyncPolicy(l);
  others(l);
  l.metadataExtras('svc AppSets carry no labels or annotations of yours');
  if (!template || blockers.length > 0) return unmappedEntry(l, object, blockers.join('; '));
  const spec: AppSetSpec = { generators: gens.generators, template, syncPolicy };
  const problems = [...schemaProblems(AppSetSpecSchema, structuredClone(spec)), ...appSetProblems(spec)];
  if (problems.length > 0) return unmappedEntry(l, object, `svc would refuse the AppSet: ${problems.join('; ')}`);
  const name = ctx.namer.take('AppSet', object.name);
  const appset: AppSetPayload = { name, generators: spec.generators, template, sync_policy: syncPolicy };
  return becameEntry(l, object, object.name, { kind: 'AppSet', name }, { appset });
}

function templateMode(l: FieldLedger, goTemplate: boolean): void {
  l.equivalent(
    'spec.goTemplate',
    goTemplate
      ? 'Go template actions that read one parameter ({{.path.basename}}, {{index .path.segments 1}}) are written as {{ key }}'
      : 'Argo CD’s default placeholders {{key}} are svc’s',
  );
  const options = l.get('spec.goTemplateOptions');
  l.take('spec.goTemplateOptions');
  for (const o of Array.isArray(options) ? options.map(String) : []) {
    const same = o === 'missingkey=error';
    l.item(`spec.goTemplateOptions[${o}]`, same ? 'equivalent' : 'unsupported', {
      note: same ? 'a parameter set lacking a key fails that App in svc' : 'svc has no template options',
    });
  }
}

/**
 * The App template: Argo CD's placeholders translated, the destination resolved to an svc cluster, then the
 * Application it describes mapped as an Application is; its notes are the template's (`spec.template.…`).
 */
function mapTemplate(
  l: FieldLedger,
  goTemplate: boolean,
  generators: AppSetSpec['generators'],
  ctx: MapContext,
  blockers: string[],
): AppTemplate | undefined {
  const raw = l.get(T);
  l.take(T);
  if (!isObject(raw)) {
    blockers.push(`${T} is missing`);
    return undefined;
  }
  const translated = translateDeep(raw, goTemplate, T, blockers) as Record<string, unknown>;
  const meta = isObject(translated['metadata']) ? translated['metadata'] : {};
  const spec = isObject(translated['spec']) ? translated['spec'] : {};
  const destination = isObject(spec['destination']) ? spec['destination'] : {};
  const cluster = clusterOf(translated, destination, generators, ctx, l, blockers);
  // The Application the template describes, sent to the management cluster: its destination is resolved above.
  const { labels: _labels, ...appMeta } = meta;
  const app: Doc = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { ...appMeta, name: 'template' },
    spec: { ...spec, destination: { name: 'in-cluster', namespace: destination['namespace'] } },
  };
  const inner = mapApplication(app, contextOf([], ctx.options));
  l.notes.push(...templateNotes(inner.fields));
  const labels = templateLabels(meta, l);
  if (inner.result === 'unmapped' || !inner.app) {
    blockers.push(`the template: ${inner.reason ?? 'not an App'}`);
    return undefined;
  }
  const name = typeof meta['name'] === 'string' ? meta['name'] : '';
  l.item(`${T}.metadata.name`, 'mapped', { to: 'template.metadata.name' });
  if (cluster === undefined) return undefined;
  const { source, sync_policy, health } = inner.app;
  return {
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: {
      source,
      destination: { namespace: inner.app.namespace, cluster },
      ...(sync_policy ? { syncPolicy: sync_policy } : {}),
      ...(health ? { health } : {}),
    } as AppTemplate['spec'],
  };
}

/** The inner Application's notes as the template's, without those this mapper states itself. */
function templateNotes(fields: readonly FieldNote[]): FieldNote[] {
  const own = /^(metadata\.name|metadata\.labels|spec\.destination\.(name|server))/;
  return fields.filter((f) => !own.test(f.field)).map((f) => ({ ...f, field: `${T}.${f.field}` }));
}

function templateLabels(meta: Record<string, unknown>, l: FieldLedger): Record<string, string> | undefined {
  if (!isObject(meta['labels'])) return undefined;
  l.item(`${T}.metadata.labels`, 'mapped', { to: 'template.metadata.labels' });
  return Object.fromEntries(Object.entries(meta['labels']).map(([k, v]) => [k, String(v)]));
}

/**
 * The svc cluster of the template's destination: the management cluster (`''`), a registered cluster, or a
 * placeholder. Argo CD's `{{server}}` of a clusters generator is svc's `{{ name }}`; a placeholder of a list
 * generator whose elements are server URLs has each element's URL written as the svc cluster name.
 */
function clusterOf(
  template: Record<string, unknown>,
  destination: Record<string, unknown>,
  generators: AppSetSpec['generators'],
  ctx: MapContext,
  l: FieldLedger,
  blockers: string[],
): string | undefined {
  const byName = typeof destination['name'] === 'string';
  const value = String((byName ? destination['name'] : destination['server']) ?? '');
  const field = `${T}.spec.destination.${byName ? 'name' : 'server'}`;
  const mapped = (cluster: string, note: string) => {
    l.item(field, 'mapped', { to: 'template.spec.destination.cluster', note });
    return cluster;
  };
  if (IN_CLUSTER.has(value)) return mapped(ctx.options.inCluster ?? '', inClusterNote(ctx));
  const key = WHOLE_PLACEHOLDER.exec(value)?.[1];
  if (key === undefined) {
    const registered = ctx.options.clusters?.[value];
    if (registered !== undefined) return mapped(registered, `the registered cluster ${registered}`);
    l.item(field, 'unsupported', { note: 'not a cluster registered in svc' });
    blockers.push(`${field} ${value || '(none)'} is not a cluster registered in svc: register it, then import again`);
    return undefined;
  }
  if (key === 'name' || key === 'server') {
    return mapped('{{ name }}', 'the clusters generator’s cluster: svc’s name of the registered cluster');
  }
  const { destination: _d, ...rest } = isObject(template['spec']) ? template['spec'] : {};
  const problem = placeholdersIn([template['metadata'], rest]).has(key)
    ? `{{ ${key} }} is also used elsewhere in the template: svc writes each element's ${key} as a cluster name`
    : listURLsToClusters(generators, key, ctx);
  if (problem) {
    l.item(field, 'unsupported', { note: problem });
    blockers.push(`${field}: ${problem}`);
    return undefined;
  }
  return mapped(`{{ ${key} }}`, `each list element’s ${key} written as the svc cluster it names`);
}

/**
 * Rewrites `key` of every list element (top-level or in a matrix/merge) from an Argo CD server URL or cluster name to
 * the svc cluster name; the problem when one is not registered.
 */
function listURLsToClusters(generators: AppSetSpec['generators'], key: string, ctx: MapContext): string | undefined {
  const lists = generators
    .flatMap((g) => [g, ...((g.matrix ?? g.merge)?.generators ?? [])])
    .flatMap((g) => g.list ?? []);
  for (const list of lists) {
    for (const element of list.elements) {
      const value = element[key];
      if (value === undefined) continue;
      const cluster = IN_CLUSTER.has(value) ? (ctx.options.inCluster ?? '') : ctx.options.clusters?.[value];
      if (cluster === undefined) return `${value} is not a cluster registered in svc: register it, then import again`;
      element[key] = cluster;
    }
  }
  return undefined;
}

function appSetSyncPolicy(l: FieldLedger): NonNullable<AppSetSpec['syncPolicy']> {
  const policy: NonNullable<AppSetSpec['syncPolicy']> = {};
  const sync = l.str('spec.syncPolicy.applicationsSync');
  if (sync === 'create-only' || sync === 'create-update' || sync === 'sync') {
    l.mapped('spec.syncPolicy.applicationsSync', 'sync_policy.applicationsSync');
    policy.applicationsSync = sync;
  } else if (sync === 'create-delete') {
    l.unsupported(
      'spec.syncPolicy.applicationsSync',
      'svc has no create-delete: imported as create-only (never updates or deletes an App); choose sync to delete Apps no longer generated',
    );
    policy.applicationsSync = 'create-only';
  } else l.equivalent('spec.syncPolicy.applicationsSync', 'sync (create, update and delete) is the default of both');
  const preserve = l.mapped('spec.syncPolicy.preserveResourcesOnDeletion', 'sync_policy.preserveResourcesOnDeletion');
  if (typeof preserve === 'boolean') policy.preserveResourcesOnDeletion = preserve;
  return policy;
}

/** ApplicationSet fields svc has no counterpart of. */
function others(l: FieldLedger): void {
  l.unsupported(
    'spec.strategy',
    "not mapped to the AppSet's strategy.rollingSync (write its steps by hand): every App syncs by itself until then",
  );
  l.unsupported('spec.templatePatch', 'svc templates are not patched per parameter set');
  l.unsupported('spec.ignoreApplicationDifferences', 'svc sets every generated App back to the template');
  l.unsupported('spec.preservedFields', 'svc keeps no fields of generated Apps but their operation');
  const finalizers = l.get('metadata.finalizers');
  l.take('metadata.finalizers');
  for (const f of Array.isArray(finalizers) ? finalizers.map(String) : []) {
    l.item(`metadata.finalizers[${f}]`, 'equivalent', { note: 'deleting an svc AppSet deletes its Apps' });
  }
}

/** What Argo CD's in-cluster address became: the management cluster, or the cluster the objects were read from. */
function inClusterNote(ctx: MapContext): string {
  const cluster = ctx.options.inCluster ?? '';
  return cluster === '' ? 'the management cluster' : `the cluster read (${cluster})`;
}
