/**
 * Argo CD objects that do not become svc objects: `AppProject` (svc has teams and role bindings instead) and cluster Secrets (svc registers clusters itself).
 * Each is reported unmapped with what to do instead, its fields listed.
 */

import { type MapContext, refOf } from './context.ts';
import { unmappedEntry } from './entry.ts';
import { FieldLedger } from './ledger.ts';
import type { Doc, ImportEntry } from './types.ts';

/** An AppProject: unmapped; says which svc features cover each part. */
export function mapAppProject(doc: Doc, _ctx: MapContext): ImportEntry {
  const l = new FieldLedger(doc);
  l.unsupported('spec.sourceRepos', 'svc Apps may use any repository their org registers (svc repository)');
  l.unsupported('spec.destinations', 'svc grants deploy rights per cluster and namespace with role bindings');
  l.unsupported('spec.roles', 'svc roles are granted to teams (svc team, svc role-binding)');
  l.unsupported('spec.clusterResourceWhitelist', 'svc has no per-project kind allow list');
  l.unsupported('spec.clusterResourceBlacklist', 'svc has no per-project kind deny list');
  l.unsupported('spec.namespaceResourceWhitelist', 'svc has no per-project kind allow list');
  l.unsupported('spec.namespaceResourceBlacklist', 'svc has no per-project kind deny list');
  l.unsupported('spec.syncWindows', 'svc freezes an App (svc app freeze) instead of sync windows');
  l.unsupported('spec.orphanedResources', 'svc does not watch for orphaned objects');
  l.unsupported('spec.sourceNamespaces', 'svc Apps live in their org’s namespace');
  l.unsupported('spec.signatureKeys', 'svc does not verify commit signatures');
  l.unsupported('spec.description', 'svc has no projects to describe');
  l.unsupported('metadata.finalizers', 'svc has no projects to finalize');
  return unmappedEntry(
    l,
    refOf(doc),
    'svc has no projects: access is granted by teams and role bindings per cluster and namespace; create those for the teams this project served',
  );
}

/** A Secret labelled `argocd.argoproj.io/secret-type: cluster`: unmapped. */
export function mapClusterSecret(doc: Doc, _ctx: MapContext): ImportEntry {
  const l = new FieldLedger(doc);
  l.take('metadata.labels');
  l.take('data');
  l.take('stringData');
  l.take('type');
  return unmappedEntry(
    l,
    refOf(doc),
    'a cluster Secret: register the cluster with svc (svc cluster register); its credentials are not imported',
  );
}
