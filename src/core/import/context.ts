/**
 * What every mapper of one import shares: the name allocator, the caller's options, the credentials found so far,
 * and the documents by kind and name (Flux objects refer to their sources and Secrets by name).
 */
import { Namer } from './naming.ts';
import type { Doc, ImportCredentials, ImportOptions, ObjectRef } from './types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface MapContext {
  namer: Namer;
  options: ImportOptions;
  credentials: ImportCredentials;
  /** Finds a document by kind, namespace and name. */
  find(kind: string, namespace: string | undefined, name: string): Doc | undefined;
  /** Records that the svc object `by` reads the document `kind` `namespace/name` (a Flux source, a Secret). */
  use(kind: string, namespace: string | undefined, name: string, by: SvcRef): void;
  /** The svc objects that read the document. */
  usersOf(kind: string, namespace: string | undefined, name: string): SvcRef[];
}

/** An svc object of the report. */
export interface SvcRef {
  kind: 'App' | 'Repository' | 'Registry';
  name: string;
}

/** The name, namespace, apiVersion and kind of a document ('' where missing). */
export function refOf(doc: Doc): ObjectRef {
  const meta = isObject(doc.metadata) ? doc.metadata : {};
  const ns = typeof meta['namespace'] === 'string' ? meta['namespace'] : undefined;
  return {
    apiVersion: typeof doc.apiVersion === 'string' ? doc.apiVersion : '',
    kind: typeof doc.kind === 'string' ? doc.kind : '',
    name: typeof meta['name'] === 'string' ? meta['name'] : '',
    ...(ns ? { namespace: ns } : {}),
  };
}

/** A context over `docs`. */
export function contextOf(docs: readonly Doc[], options: ImportOptions): MapContext {
  const byKey = new Map<string, Doc>();
  for (const doc of docs) {
    const r = refOf(doc);
    byKey.set(`${r.kind}/${r.namespace ?? ''}/${r.name}`, doc);
  }

  const users = new Map<string, SvcRef[]>();
  const key = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? ''}/${name}`;
  return {
    namer: new Namer(),
    options,
    credentials: { repositories: new Map(), registries: new Map() },
    find: (kind, namespace, name) => byKey.get(key(kind, namespace, name)),
    use: (kind, namespace, name, by) => {
      const list = users.get(key(kind, namespace, name)) ?? [];
      if (!list.some((u) => u.kind === by.kind && u.name === by.name)) list.push(by);
      users.set(key(kind, namespace, name), list);
    },
    usersOf: (kind, namespace, name) => users.get(key(kind, namespace, name)) ?? [],
  };
}
