/**
 * Argo CD repository Secrets (`argocd.argoproj.io/secret-type: repository`) and credential templates
 * (`repo-creds`) as svc repositories. An svc repository covers its URL and every URL below it, as a credential
 * template does, so both map the same way. Credentials move into ImportCredentials (sealed when applied); the
 * report says only which were found.
 */

import { repoURLProblem } from '../app-state.ts';
import { chartRepoURLProblem } from '../helm-chart.ts';
import type { RepositoryType } from '../repository.ts';
import { type MapContext, refOf } from './context.ts';
import { becameEntry, unmappedEntry } from './entry.ts';
import { FieldLedger } from './ledger.ts';
import { ARGO_KEYS, repositoryFrom } from './repository-credentials.ts';
import { secretData } from './secret-data.ts';
import type { Doc, ImportEntry } from './types.ts';

/** Credential kinds svc cannot hold: the repository is unmapped. */
const FOREIGN_AUTH: Record<string, string> = {
  githubAppPrivateKey: 'GitHub App credentials',
  gcpServiceAccountKey: 'a Google Cloud service account',
  useAzureWorkloadIdentity: 'Azure workload identity',
  bearerToken: 'a bearer token',
};

/** Maps a repository or repo-creds Secret. */
export function mapRepositorySecret(doc: Doc, ctx: MapContext): ImportEntry {
  const object = refOf(doc);
  const data = secretData(doc);
  // The ledger sees the decoded keys as `data`, so the report names each key whatever field held it.
  const { stringData: _plain, ...rest } = doc;
  const l = new FieldLedger({ ...rest, data: Object.fromEntries([...data.keys()].map((k) => [k, ''])) });
  l.metadataExtras('svc repositories carry no labels or annotations', ['argocd.argoproj.io/secret-type']);
  l.equivalent('type', 'an Opaque Secret');
  const { type, url, blockers } = connectionOf(l, data, labelOf(doc) === 'repo-creds');
  unsupportedKeys(l);
  const original = data.get('name') ?? object.name;
  l.mapped('data.name', 'name');
  if (blockers.length > 0) {
    for (const key of Object.keys(FOREIGN_AUTH)) {
      l.unsupported(`data["${key}"]`, 'svc cannot use this kind of credential');
    }
    for (const key of data.keys()) l.take(`data["${key}"]`);
    return unmappedEntry(l, object, blockers.join('; '));
  }
  const name = ctx.namer.take('Repository', original);
  const { payload, credentials } = repositoryFrom({ name, type, url }, data, ARGO_KEYS, l, 'data');
  ctx.credentials.repositories.set(name, credentials);
  return becameEntry(l, object, original, { kind: 'Repository', name }, { repository: payload });
}

/** The repository's type and URL (a Helm OCI URL written without its scheme gets `oci://`), and what blocks it. */
function connectionOf(l: FieldLedger, data: ReadonlyMap<string, string>, template: boolean) {
  const argoType = data.get('type') ?? 'git';
  const type: RepositoryType = argoType === 'git' ? 'git' : 'helm';
  let url = data.get('url') ?? '';
  if (type === 'helm' && !/^[a-z]+:\/\//i.test(url)) url = `oci://${url}`;
  l.mapped('data.type', 'type', argoType === 'oci' ? 'an OCI repository: svc reads charts from it' : undefined);
  l.mapped('data.url', 'url', template ? 'covers every repository below it, like a credential template' : undefined);
  l.equivalent('data.enableOCI', 'the URL is written oci://');
  const blockers: string[] = [];
  const urlProblem =
    type === 'git' ? repoURLProblem(url)?.replace('source.git.repoURL', 'url') : chartRepoURLProblem(url);
  if (urlProblem) blockers.push(urlProblem);
  for (const [key, what] of Object.entries(FOREIGN_AUTH)) {
    if (data.has(key)) {
      blockers.push(
        `${what}: svc repositories take a user and password (or token), an SSH key or a TLS client certificate`,
      );
    }
  }
  return { type, url, blockers };
}

function labelOf(doc: Doc): string | undefined {
  const labels = (doc.metadata as { labels?: Record<string, string> } | undefined)?.labels;
  return labels?.['argocd.argoproj.io/secret-type'];
}

function unsupportedKeys(l: FieldLedger): void {
  const why: Record<string, string> = {
    insecure: 'svc never skips TLS verification: register the CA (ca) instead',
    insecureIgnoreHostKey: 'svc checks SSH host keys: set known_hosts on the repository',
    enableLfs: 'svc does not fetch Git LFS objects',
    project: 'svc has no projects: a repository belongs to the org',
    proxy: 'svc reaches repositories through its own outbound settings',
    noProxy: 'svc reaches repositories through its own outbound settings',
    githubAppID: 'GitHub App credentials are not supported',
    githubAppInstallationID: 'GitHub App credentials are not supported',
    githubAppEnterpriseBaseUrl: 'GitHub App credentials are not supported',
  };
  for (const [key, note] of Object.entries(why)) l.unsupported(`data.${key}`, note);
  l.equivalent('data.forceHttpBasicAuth', 'svc sends the user and password as HTTP basic auth');
}
