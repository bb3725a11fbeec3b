/**
 * Reading the objects an import maps from a cluster (docs/migrate.md "From a cluster"): every kind svc imports, in
 * the namespaces given (all when none), found through discovery — a kind whose CRD is not installed is named in
 * `notServed`, not an error — plus the Secrets they use: Argo CD's repository and repo-creds Secrets by their
 * `argocd.argoproj.io/secret-type` label, and the Secrets Flux sources and image repositories name in `secretRef`
 * or `certSecretRef`. Argo CD's cluster Secrets are not read (svc does not import clusters from them). Each object
 * is stripped of what the server set (src/core/import/live-object.ts). A read the credentials may not make (403) is
 * a note; an unreachable cluster or any other refusal is an error.
 */

import { UnprocessableError } from '../../core/errors.ts';
import { MAX_IMPORT_DOCUMENTS } from '../../core/import/index.ts';
import { authoredObject } from '../../core/import/live-object.ts';
import type { Doc } from '../../core/import/types.ts';
import { type AnyObject, KubeApiError, type KubeConnection, toSvcError } from '../../kube/index.ts';

/** The kinds an import reads, by API group. */
const IMPORTED_KINDS: Record<string, readonly string[]> = {
  'argoproj.io': ['Application', 'ApplicationSet', 'AppProject'],
  'source.toolkit.fluxcd.io': ['GitRepository', 'OCIRepository', 'HelmRepository'],
  'kustomize.toolkit.fluxcd.io': ['Kustomization'],
  'helm.toolkit.fluxcd.io': ['HelmRelease'],
  'image.toolkit.fluxcd.io': ['ImageRepository', 'ImagePolicy'],
};

/** Kinds whose `spec.secretRef` / `spec.certSecretRef` name a Secret of their namespace that the mapping reads. */
const SECRET_USERS = new Set(['GitRepository', 'OCIRepository', 'HelmRepository', 'ImageRepository']);

const ARGOCD_SECRETS = 'argocd.argoproj.io/secret-type in (repository,repo-creds)';

/** What was read. */
export interface ClusterObjects {
  docs: Doc[];
  /** `Kind (group)` of the imported kinds the cluster does not serve. */
  notServed: string[];
  /** Reads the credentials were refused (403), as sentences naming the kind and namespace. */
  notes: string[];
}

/** Where to read: `namespaces` empty means every namespace. `what` names the cluster in errors. */
export interface ReadScope {
  namespaces: readonly string[];
  what: string;
}

/** Reads the imported kinds and their Secrets from `conn` within `scope`. */
export async function readClusterObjects(conn: KubeConnection, scope: ReadScope): Promise<ClusterObjects> {
  const out = { docs: [] as AnyObject[], notServed: [] as string[], notes: [] as string[] };
  try {
    for (const [group, kinds] of Object.entries(IMPORTED_KINDS)) {
      const versions = await groupVersions(conn, group);
      for (const kind of kinds) {
        const apiVersion = await servingVersion(conn, versions, kind);
        if (!apiVersion) out.notServed.push(`${kind} (${group})`);
        else out.docs.push(...(await listIn(conn, scope, out.notes, apiVersion, kind, '')));
      }
    }
    const secrets = await listIn(conn, scope, out.notes, 'v1', 'Secret', ARGOCD_SECRETS);
    out.docs.push(...secrets, ...(await referencedSecrets(conn, out.docs, out.notes)));
  } catch (err) {
    throw toSvcError(err, scope.what);
  }
  if (out.docs.length > MAX_IMPORT_DOCUMENTS) {
    throw new UnprocessableError(`${scope.what} holds more than ${MAX_IMPORT_DOCUMENTS} objects to import`);
  }
  return { ...out, docs: out.docs.map(authoredObject) };
}

/** The group's versions, preferred first; none when the server does not serve the group. */
async function groupVersions(conn: KubeConnection, group: string): Promise<string[]> {
  try {
    const answer = await conn.client.request<{
      preferredVersion?: { groupVersion?: string };
      versions?: { groupVersion?: string }[];
    }>(`/apis/${group}`);
    const all = (answer.versions ?? []).flatMap((v) => (v.groupVersion ? [v.groupVersion] : []));
    const preferred = answer.preferredVersion?.groupVersion;
    return preferred ? [preferred, ...all.filter((v) => v !== preferred)] : all;
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404) return [];
    throw err;
  }
}

/** The first of `versions` that serves `kind` with a list verb. */
async function servingVersion(conn: KubeConnection, versions: string[], kind: string): Promise<string | undefined> {
  for (const apiVersion of versions) {
    const info = await conn.discovery.lookup(apiVersion, kind);
    if (info?.verbs.includes('list')) return apiVersion;
  }
  return undefined;
}

/** Objects of one kind in every namespace of the scope; a refused read (403) is a note, not an error. */
async function listIn(
  conn: KubeConnection,
  scope: ReadScope,
  notes: string[],
  apiVersion: string,
  kind: string,
  labelSelector: string,
): Promise<AnyObject[]> {
  const targets = scope.namespaces.length === 0 ? [undefined] : scope.namespaces;
  const out: AnyObject[] = [];
  for (const namespace of targets) {
    try {
      out.push(...(await conn.objects.list(apiVersion, kind, labelSelector, namespace)));
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 403)) throw err;
      notes.push(`the credentials may not list ${kind} ${namespace ? `in namespace ${namespace}` : 'cluster-wide'}`);
    }
  }
  return out;
}

/** The Secrets Flux sources and image repositories name, each read once (absent ones are left to the mapping). */
async function referencedSecrets(conn: KubeConnection, docs: readonly AnyObject[], notes: string[]) {
  const wanted = new Map<string, { namespace: string; name: string }>();
  for (const doc of docs) {
    if (!SECRET_USERS.has(String(doc.kind)) || !String(doc.apiVersion).includes('fluxcd.io/')) continue;
    const namespace = doc.metadata.namespace ?? '';
    const spec = (doc as { spec?: Record<string, { name?: unknown } | undefined> }).spec ?? {};
    for (const ref of [spec['secretRef'], spec['certSecretRef']]) {
      if (typeof ref?.name === 'string') wanted.set(`${namespace}/${ref.name}`, { namespace, name: ref.name });
    }
  }
  const out: AnyObject[] = [];
  for (const { namespace, name } of wanted.values()) {
    try {
      const secret = await conn.objects.get({ apiVersion: 'v1', kind: 'Secret', namespace, name });
      if (secret) out.push({ ...secret, apiVersion: 'v1', kind: 'Secret' });
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 403)) throw err;
      notes.push(`the credentials may not read Secret ${namespace}/${name}`);
    }
  }
  return out;
}
