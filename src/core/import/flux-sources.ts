/**
 * Flux sources (`GitRepository`, `HelmRepository`, `OCIRepository`): not Apps themselves, but read by the Apps of
 * the Kustomizations and HelmReleases that name them. With a `secretRef` whose Secret is imported too, a source
 * becomes an svc repository holding those credentials (sealed when applied), which covers the source's URL.
 */

import type { RepositoryType } from '../repository.ts';
import { type MapContext, refOf } from './context.ts';
import { resultOf, unmappedEntry } from './entry.ts';
import { gitOf, helmRepositoryURL } from './flux-source-ref.ts';
import { FieldLedger } from './ledger.ts';
import { renameNote } from './naming.ts';
import { FLUX_KEYS, repositoryFrom } from './repository-credentials.ts';
import { dockerAuths, secretData } from './secret-data.ts';
import type { Doc, ImportEntry } from './types.ts';

/** Maps a GitRepository, HelmRepository or OCIRepository (after the Apps, so it knows who reads it). */
export function mapFluxSource(doc: Doc, ctx: MapContext): ImportEntry {
  const object = refOf(doc);
  const l = new FieldLedger(doc);
  l.metadataExtras('not carried over');
  const partOf = ctx.usersOf(object.kind, object.namespace, object.name);
  const type: RepositoryType = object.kind === 'GitRepository' ? 'git' : 'helm';
  const url = urlOf(doc, object.kind);
  l.mapped('spec.url', type === 'git' ? 'source.git.repoURL' : 'source.helmChart.repoURL', 'of the Apps that read it');
  if (object.kind === 'GitRepository') {
    const from = gitOf(doc);
    if (!('blocker' in from)) l.mapped('spec.ref.branch', 'source.git.branch');
    else l.unsupported('spec.ref', from.blocker);
  } else if (object.kind === 'OCIRepository') {
    l.mapped('spec.ref', 'source.helmChart.version');
    l.equivalent('spec.layerSelector', 'svc reads the chart layer');
  }
  l.equivalent('spec.type', 'the URL says oci://');
  l.equivalent('spec.interval', 'svc reads the source on every resync');
  l.equivalent('spec.timeout', 'svc bounds each read itself');
  unsupported(l);
  const repository = repositoryOf(l, doc, ctx, type, url);
  const users = partOf;
  if (!repository && users.length === 0) {
    return unmappedEntry(
      l,
      object,
      'no imported Kustomization or HelmRelease reads it, and it holds no credentials to register',
    );
  }
  const fields = l.finish();
  return {
    object,
    result: resultOf(fields),
    ...(repository ? { becomes: { kind: 'Repository' as const, name: repository.name }, repository } : {}),
    ...(users.length > 0 ? { partOf: users } : {}),
    fields,
  };
}

function urlOf(doc: Doc, kind: string): string {
  const spec = (doc['spec'] ?? {}) as Record<string, unknown>;
  const url = typeof spec['url'] === 'string' ? spec['url'] : '';
  if (kind === 'HelmRepository') return helmRepositoryURL(doc);
  // An OCIRepository names one chart; the repository covers the path that holds it.
  if (kind === 'OCIRepository') return url.replace(/\/+$/, '').replace(/\/[^/]+$/, '');
  return url;
}

/** The repository of `spec.secretRef` (and `certSecretRef`), when that Secret is imported. */
function repositoryOf(l: FieldLedger, doc: Doc, ctx: MapContext, type: RepositoryType, url: string) {
  const r = refOf(doc);
  const names = [l.str('spec.secretRef.name'), l.str('spec.certSecretRef.name')];
  if (names.every((n) => n === undefined)) return undefined;
  const secrets = names.map((n) => (n ? ctx.find('Secret', r.namespace, n) : undefined));
  const missing = names.filter((n, i) => n !== undefined && secrets[i] === undefined);
  if (missing.length > 0) {
    l.item('spec.secretRef', 'unsupported', {
      note: `Secret ${missing.join(', ')} is not among the imported documents: register the repository with its credentials`,
    });
    l.take('spec.secretRef');
    l.take('spec.certSecretRef');
    return undefined;
  }
  const name = ctx.namer.take('Repository', r.name);
  const { payload, credentials } = repositoryFrom(
    { name, type, url },
    credentialData(secrets),
    FLUX_KEYS,
    new FieldLedger({}),
    'data',
  );
  l.mapped('spec.secretRef', 'repository credentials (sealed)', `from Secret ${names[0] ?? ''}`);
  l.mapped('spec.certSecretRef', 'repository ca, tls_client_cert, tls_client_key', `from Secret ${names[1] ?? ''}`);
  ctx.credentials.repositories.set(name, credentials);
  for (const s of names) if (s) ctx.use('Secret', r.namespace, s, { kind: 'Repository', name });
  const rename = renameNote(r.name, name);
  if (rename) l.item('metadata.name', 'mapped', { to: 'repository name', note: rename });
  return payload;
}

/** The keys of the Secrets (the certificate Secret's, then the credentials' over them; a dockerconfigjson's pair). */
function credentialData(secrets: (Doc | undefined)[]): Map<string, string> {
  const data = new Map<string, string>();
  for (const secret of [...secrets].reverse()) if (secret) for (const [k, v] of secretData(secret)) data.set(k, v);
  const docker = dockerAuths(data.get('.dockerconfigjson'))[0];
  if (docker) {
    data.set('username', docker.username);
    data.set('password', docker.password);
  }
  return data;
}

function unsupported(l: FieldLedger): void {
  const why: Record<string, string> = {
    suspend: 'suspend the Apps that read it instead (sync_policy.automated false)',
    ignore: 'svc renders every manifest of the path',
    include: 'svc reads one repository per App',
    recurseSubmodules: 'svc does not fetch submodules',
    verify: 'svc does not verify signatures',
    proxySecretRef: 'svc reaches repositories through its own outbound settings',
    provider: 'svc takes stored credentials, not cloud workload identity',
    insecure: 'plain http: set insecure on the svc repository (oci:// only, not in production mode)',
    passCredentials: 'svc sends credentials only to the repository they were registered for',
    accessFrom: 'svc repositories belong to the org',
    sparseCheckout: 'svc checks out the whole repository',
    serviceAccountName: 'svc takes stored credentials',
  };
  for (const [field, note] of Object.entries(why)) l.unsupported(`spec.${field}`, note);
}
