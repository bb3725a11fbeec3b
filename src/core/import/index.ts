/**
 * The importer (docs/migrate.md): Argo CD and Flux objects in, a report out — per object the svc App, repository or
 * registry it becomes, or why it cannot be mapped, field by field — plus the credentials found in Secrets, kept
 * apart from the report so no answer or log can carry them. Pure: the API applies the payloads through its own use
 * cases (RBAC, validation, audit) and seals the credentials.
 */
import { parseAllDocuments } from 'yaml';
import { InputError } from '../errors.ts';
import { mapApplication } from './argocd-application.ts';
import { mapApplicationSet } from './argocd-applicationset.ts';
import { mapAppProject, mapClusterSecret } from './argocd-others.ts';
import { mapRepositorySecret } from './argocd-repository.ts';
import { contextOf, type MapContext, refOf } from './context.ts';
import { mapHelmRelease } from './flux-helmrelease.ts';
import { mapImagePolicy, mapImageRepository } from './flux-image.ts';
import { mapKustomization } from './flux-kustomization.ts';
import { mapFluxSource } from './flux-sources.ts';
import type { Doc, ImportCredentials, ImportEntry, ImportOptions, ImportReport, ImportSummary } from './types.ts';

export type * from './types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Most documents one import reads. */
export const MAX_IMPORT_DOCUMENTS = 5000;

/**
 * The objects of YAML (or JSON) text: every document, `kind: List` expanded, empty documents skipped. InputError
 * when the text is not YAML or a document is not an object.
 */
export function parseImportDocuments(text: string): Doc[] {
  try {
    return readDocuments(text);
  } catch (err) {
    if (err instanceof InputError) throw err;
    // The parser's own failures (an alias bomb, nesting too deep for the stack) are bad input too.
    throw new InputError('documents is not valid YAML', { cause: err });
  }
}

function readDocuments(text: string): Doc[] {
  const docs: Doc[] = [];
  const parsed = parseAllDocuments(text, { prettyErrors: false });
  const all = Array.isArray(parsed) ? parsed : [parsed];
  for (const [i, d] of all.entries()) {
    if (d.errors.length > 0)
      throw new InputError(`document ${i + 1} is not valid YAML: ${d.errors[0]?.message ?? ''}`.trim());
    const value: unknown = d.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) continue;
    if (!isObject(value)) throw new InputError(`document ${i + 1} is not an object`);
    if (value['kind'] === 'List' && Array.isArray(value['items'])) docs.push(...value['items'].filter(isObject));
    else docs.push(value);
    if (docs.length > MAX_IMPORT_DOCUMENTS) throw new InputError(`more than ${MAX_IMPORT_DOCUMENTS} documents`);
  }
  return docs;
}

type Mapper = (doc: Doc, ctx: MapContext) => ImportEntry;

const group = (doc: Doc) => (typeof doc.apiVersion === 'string' ? doc.apiVersion.split('/')[0] : '');

/** Which mapper reads a document, and in which pass (Apps first, then the sources and Secrets they name). */
function mapperOf(doc: Doc): [number, Mapper] | undefined {
  const kind = `${group(doc)}:${String(doc.kind)}`;
  const table: Record<string, [number, Mapper]> = {
    'argoproj.io:Application': [0, mapApplication],
    'argoproj.io:ApplicationSet': [2, mapApplicationSet],
    'argoproj.io:AppProject': [2, mapAppProject],
    'kustomize.toolkit.fluxcd.io:Kustomization': [0, mapKustomization],
    'helm.toolkit.fluxcd.io:HelmRelease': [0, mapHelmRelease],
    'source.toolkit.fluxcd.io:GitRepository': [1, mapFluxSource],
    'source.toolkit.fluxcd.io:HelmRepository': [1, mapFluxSource],
    'source.toolkit.fluxcd.io:OCIRepository': [1, mapFluxSource],
    'image.toolkit.fluxcd.io:ImageRepository': [1, mapImageRepository],
    'image.toolkit.fluxcd.io:ImagePolicy': [2, mapImagePolicy],
  };
  if (doc.kind === 'Secret' && group(doc) === 'v1') {
    const type = (doc.metadata as { labels?: Record<string, string> } | undefined)?.labels?.[
      'argocd.argoproj.io/secret-type'
    ];
    if (type === 'repository' || type === 'repo-creds') return [1, mapRepositorySecret];
    if (type === 'cluster') return [2, mapClusterSecret];
    return [2, mapPlainSecret];
  }
  return table[kind];
}

/** A Secret that is not Argo CD's: part of the repositories or registries that read it, else unmapped. */
function mapPlainSecret(doc: Doc, ctx: MapContext): ImportEntry {
  const object = refOf(doc);
  const users = ctx.usersOf('Secret', object.namespace, object.name);
  if (users.length === 0) {
    return {
      object,
      result: 'unmapped',
      reason: 'no imported Flux source or image repository refers to this Secret',
      fields: [],
    };
  }
  return {
    object,
    result: 'mapped',
    partOf: users,
    fields: [
      {
        field: 'data',
        status: 'mapped',
        to: users.map((u) => `${u.kind} ${u.name}`).join(', '),
        note: 'sealed; never shown',
      },
    ],
  };
}

/** Maps every document; entries in document order. */
export function mapImport(
  docs: readonly Doc[],
  options: ImportOptions = {},
): { report: ImportReport; credentials: ImportCredentials } {
  const ctx = contextOf(docs, options);
  const entries: (ImportEntry | undefined)[] = docs.map(() => undefined);
  for (const pass of [0, 1, 2]) {
    for (const [i, doc] of docs.entries()) {
      const mapper = mapperOf(doc);
      if (mapper?.[0] === pass) entries[i] = mapper[1](doc, ctx);
    }
  }
  const done = entries.map(
    (e, i): ImportEntry =>
      e ?? {
        object: refOf(docs[i] as Doc),
        result: 'unmapped',
        reason: 'not an Argo CD or Flux object svc imports',
        fields: [],
      },
  );
  return { report: { entries: done, summary: summarize(done) }, credentials: ctx.credentials };
}

/** The counts of a report's entries. */
export function summarize(entries: readonly ImportEntry[]): ImportSummary {
  const count = (p: (e: ImportEntry) => boolean) => entries.filter(p).length;
  return {
    objects: entries.length,
    mapped: count((e) => e.result === 'mapped'),
    partial: count((e) => e.result === 'partial'),
    unmapped: count((e) => e.result === 'unmapped'),
    apps: count((e) => e.becomes?.kind === 'App'),
    appsets: count((e) => e.becomes?.kind === 'AppSet'),
    repositories: count((e) => e.becomes?.kind === 'Repository'),
    registries: count((e) => e.becomes?.kind === 'Registry'),
  };
}
