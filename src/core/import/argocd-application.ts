/**
 * An Argo CD `Application` as an svc App create payload (docs/migrate.md "Argo CD"): its single source
 * (./argocd-source.ts), destination, sync policy; everything svc has no field for is listed, and a multi-source
 * Application, a plugin, a pinned commit or an unregistered destination make it unmapped, with the reason.
 */

import { mapArgoSource } from './argocd-source.ts';
import { type MapContext, refOf } from './context.ts';
import { becameEntry, unmappedEntry } from './entry.ts';
import { FieldLedger } from './ledger.ts';
import type { AppPayload, Doc, ImportEntry } from './types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Argo CD's names of the cluster it runs in: svc's management cluster. */
const IN_CLUSTER = new Set(['https://kubernetes.default.svc', 'https://kubernetes.default.svc:443', 'in-cluster']);

/** Maps an Application. */
export function mapApplication(doc: Doc, ctx: MapContext): ImportEntry {
  const object = refOf(doc);
  const l = new FieldLedger(singleSource(doc));
  const blockers: string[] = [];
  if (Array.isArray((doc['spec'] as Record<string, unknown> | undefined)?.['sources'])) {
    if ((l.get('spec.sources') as unknown[]).length > 1) {
      l.unsupported('spec.sources', 'svc Apps have one source');
      blockers.push(
        'a multi-source Application (spec.sources): svc Apps have one source; import each source as its own App',
      );
    } else l.equivalent('spec.sources', 'one source: read as spec.source');
  }
  metadata(l);
  project(l);
  const source = blockers.length === 0 ? mapArgoSource(l) : { blockers: [] };
  blockers.push(...source.blockers);
  const destination = destinationOf(l, ctx);
  if ('blocker' in destination) blockers.push(destination.blocker);
  const sync = syncPolicy(l);
  l.unsupported(
    'spec.ignoreDifferences',
    'svc has no ignore rules: a field its manifests set is set back at each sync; drop the field from the manifests to leave it to another controller',
  );
  l.unsupported('spec.revisionHistoryLimit', 'svc keeps the last 50 revisions');
  l.unsupported('spec.info', 'svc Apps carry no extra information');
  if (blockers.length > 0 || !('source' in source) || 'blocker' in destination) {
    return unmappedEntry(l, object, blockers.join('; '));
  }
  const name = ctx.namer.take('App', object.name);
  const app: AppPayload = { name, namespace: destination.namespace, source: source.source, sync_policy: sync };
  if (destination.cluster) app.cluster = destination.cluster;
  return becameEntry(l, object, object.name, { kind: 'App', name }, { app });
}

/** The document with a one-element `spec.sources` read as `spec.source`. */
function singleSource(doc: Doc): Doc {
  const spec = doc['spec'];
  if (!isObject(spec) || !Array.isArray(spec['sources']) || spec['sources'].length !== 1) return doc;
  return { ...doc, spec: { ...spec, source: spec['sources'][0] } };
}

function metadata(l: FieldLedger): void {
  const finalizers = l.get('metadata.finalizers');
  l.take('metadata.finalizers');
  for (const f of Array.isArray(finalizers) ? finalizers.map(String) : []) {
    const cascade = f.startsWith('resources-finalizer.argocd.argoproj.io');
    l.item(`metadata.finalizers[${f}]`, cascade ? 'equivalent' : 'unsupported', {
      note: cascade ? 'deleting an svc App deletes its objects' : 'svc Apps carry no finalizers of yours',
    });
  }
  const annotations = l.get('metadata.annotations');
  for (const key of isObject(annotations) ? Object.keys(annotations) : []) {
    if (key.startsWith('notifications.argoproj.io/')) {
      l.unsupported(
        `metadata.annotations["${key}"]`,
        'svc notifications are set per App (notifications: chat, slack, msTeams, webhook)',
      );
    }
  }
  l.metadataExtras('svc Apps carry no labels or annotations of yours');
}

function project(l: FieldLedger): void {
  const p = l.get('spec.project');
  if (p === 'default' || p === undefined || p === '') l.equivalent('spec.project', 'the default project');
  else {
    l.unsupported(
      'spec.project',
      'svc has no projects: who may deploy where is granted by teams and role bindings (svc role-binding)',
    );
  }
}

type Destination = { namespace: string; cluster: string } | { blocker: string };

function destinationOf(l: FieldLedger, ctx: MapContext): Destination {
  const server = l.str('spec.destination.server');
  const name = l.str('spec.destination.name');
  const key = name ?? server ?? '';
  let cluster: string | undefined;
  if (IN_CLUSTER.has(key)) cluster = ctx.options.inCluster ?? '';
  else cluster = ctx.options.clusters?.[key];
  const field = name !== undefined ? 'spec.destination.name' : 'spec.destination.server';
  const namespace = l.mapped('spec.destination.namespace', 'namespace');
  if (cluster === undefined) {
    l.unsupported(field, 'not a cluster registered in svc');
    return {
      blocker: `destination ${key || '(none)'} is not a cluster registered in svc: register it, then import again`,
    };
  }
  l.mapped(field, 'cluster', cluster === '' ? 'the management cluster' : inClusterNote(key, cluster));
  l.take('spec.destination.server');
  l.take('spec.destination.name');
  if (typeof namespace !== 'string' || namespace === '') {
    return { blocker: 'spec.destination.namespace is missing: an svc App deploys to one namespace' };
  }
  return { namespace, cluster };
}

function syncPolicy(l: FieldLedger): NonNullable<AppPayload['sync_policy']> {
  const automated = l.get('spec.syncPolicy.automated');
  const on = isObject(automated) && automated['enabled'] !== false;
  const policy = { automated: on, prune: false, selfHeal: false };
  if (on) {
    l.take('spec.syncPolicy.automated.enabled');
    if (Object.keys(automated).length === 0)
      l.item('spec.syncPolicy.automated', 'mapped', { to: 'sync_policy.automated' });
    policy.prune = l.mapped('spec.syncPolicy.automated.prune', 'sync_policy.prune') === true;
    policy.selfHeal =
      l.mapped(
        'spec.syncPolicy.automated.selfHeal',
        'sync_policy.selfHeal',
        'svc records selfHeal; it does not act on drift yet',
      ) === true;
    if (l.get('spec.syncPolicy.automated.allowEmpty') === true) {
      l.unsupported(
        'spec.syncPolicy.automated.allowEmpty',
        'svc never applies an empty set (it would prune everything)',
      );
    } else l.equivalent('spec.syncPolicy.automated.allowEmpty', 'svc never applies an empty set');
    l.take('spec.syncPolicy.automated');
  } else l.equivalent('spec.syncPolicy.automated', 'automated sync is off');
  syncOptions(l);
  l.unsupported(
    'spec.syncPolicy.retry',
    'svc retries a failed sync by itself (30 s after an error); it cannot be tuned per App',
  );
  l.unsupported(
    'spec.syncPolicy.managedNamespaceMetadata',
    'svc sets no labels or annotations on the namespace it creates',
  );
  return policy;
}

const SYNC_OPTIONS: Record<string, ['equivalent' | 'unsupported', string]> = {
  'CreateNamespace=true': ['equivalent', 'svc creates the destination namespace when it is missing'],
  'CreateNamespace=false': ['unsupported', 'svc creates the destination namespace when it is missing'],
  'ServerSideApply=true': ['equivalent', 'svc always applies server-side'],
  'ApplyOutOfSyncOnly=true': ['equivalent', 'svc applies the whole set; unchanged objects are not changed'],
  'Validate=true': ['equivalent', 'the API server validates every object svc applies'],
  'PruneLast=true': ['equivalent', 'svc prunes after the last wave is applied and healthy, always'],
};

function syncOptions(l: FieldLedger): void {
  const options = l.get('spec.syncPolicy.syncOptions');
  l.take('spec.syncPolicy.syncOptions');
  for (const o of Array.isArray(options) ? options.map(String) : []) {
    const [status, note] = SYNC_OPTIONS[o] ?? ['unsupported', 'svc has no such sync option'];
    l.item(`spec.syncPolicy.syncOptions[${o}]`, status, { note });
  }
}

/** Says which svc cluster Argo CD's in-cluster address became when it is not the management cluster. */
function inClusterNote(key: string, cluster: string): string | undefined {
  return IN_CLUSTER.has(key) ? `the cluster the Application was read from (${cluster})` : undefined;
}
