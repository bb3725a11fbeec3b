/**
 * Flux image automation: an `ImageRepository` with a dockerconfigjson `secretRef` becomes an svc registry holding
 * those credentials (sealed when applied); an `ImagePolicy` has no svc counterpart (svc image Apps follow one tag's
 * digest, tagPolicy Follow, and never write tags back to Git).
 */

import { type MapContext, refOf } from './context.ts';
import { becameEntry, unmappedEntry } from './entry.ts';
import { FieldLedger } from './ledger.ts';
import { dockerAuths, secretData } from './secret-data.ts';
import type { Doc, ImportEntry } from './types.ts';

/** Maps an ImageRepository. */
export function mapImageRepository(doc: Doc, ctx: MapContext): ImportEntry {
  const object = refOf(doc);
  const l = new FieldLedger(doc);
  l.metadataExtras('not carried over');
  const image = l.str('spec.image') ?? '';
  const host =
    image.includes('/') && /[.:]|^localhost/.test(image.split('/')[0] ?? '')
      ? (image.split('/')[0] as string)
      : 'docker.io';
  l.mapped('spec.image', 'host', `the registry ${host}`);
  l.equivalent('spec.interval', 'svc reads a registry when an App needs it');
  for (const [field, note] of Object.entries({
    exclusionList: 'svc lists no tags: an App names its tag',
    filterTags: 'svc lists no tags: an App names its tag',
    provider: 'svc takes stored credentials, not cloud workload identity',
    certSecretRef: 'set ca on the svc registry',
    proxySecretRef: 'svc reaches registries through its own outbound settings',
    serviceAccountName: 'svc takes stored credentials',
    insecure: 'set insecure on the svc registry (not in production mode)',
    accessFrom: 'svc registries belong to the org',
    suspend: 'not applicable',
    timeout: 'svc bounds each request itself',
  })) {
    l.unsupported(`spec.${field}`, note);
  }
  const secretName = l.str('spec.secretRef.name');
  const secret = secretName ? ctx.find('Secret', object.namespace, secretName) : undefined;
  const auth = secret
    ? dockerAuths(secretData(secret).get('.dockerconfigjson')).find((a) => a.host === host)
    : undefined;
  if (!auth) {
    if (secretName)
      l.unsupported(
        'spec.secretRef',
        `Secret ${secretName} is not among the imported documents or holds no credentials for ${host}`,
      );
    return unmappedEntry(
      l,
      object,
      secretName
        ? `its credentials (Secret ${secretName}) are not among the imported documents: register the registry with them`
        : 'no credentials: svc reads public registries without a registered registry',
    );
  }
  const name = ctx.namer.take('Registry', object.name);
  l.mapped('spec.secretRef', 'username, password (sealed)', `from Secret ${secretName}`);
  ctx.credentials.registries.set(name, { username: auth.username, password: auth.password });
  ctx.use('Secret', object.namespace, secretName as string, { kind: 'Registry', name });
  return becameEntry(
    l,
    object,
    object.name,
    { kind: 'Registry', name },
    { registry: { name, host, username: auth.username, has_password: true } },
  );
}

/** Maps an ImagePolicy: unmapped. */
export function mapImagePolicy(doc: Doc, _ctx: MapContext): ImportEntry {
  const l = new FieldLedger(doc);
  l.unsupported('spec.imageRepositoryRef', 'svc image Apps name their repository themselves');
  l.unsupported('spec.policy', 'svc selects no tags by semver, alphabetical or numerical order');
  l.unsupported('spec.filterTags', 'svc selects no tags');
  l.unsupported('spec.digestReflectionPolicy', 'svc image Apps with tagPolicy Follow redeploy when their tag moves');
  return unmappedEntry(
    l,
    refOf(doc),
    'svc has no image policies: an image App follows one tag (tagPolicy Follow redeploys when it moves to a new digest) and never writes tags back to Git',
  );
}
