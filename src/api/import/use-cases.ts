/**
 * The import use-case (docs/migrate.md; issue 28): maps Argo CD and Flux objects (src/core/import), given as YAML or
 * read from a cluster, and, with `apply`, creates what they become through the existing create use-cases —
 * repositories and registries first (their credentials sealed by those), then Apps — so each is authorized by its own permission at its own scope, checked by
 * its own rules and audited as its own create. One object that cannot be created is a `failed` entry, not an error.
 * A mapped App the create rules would refuse is reported unmapped in the dry-run already, naming the rule.
 */
import { parseCreateRequest } from '../../core/create-request.ts';
import { ForbiddenError, InputError, SvcError, UnprocessableError } from '../../core/errors.ts';
import {
  type ImportCredentials,
  type ImportEntry,
  mapImport,
  parseImportDocuments,
  summarize,
} from '../../core/import/index.ts';
import { orgNamespace } from '../../core/names.ts';
import { schemaProblems } from '../../core/validator.ts';
import { AppCreateRequest } from '../apps/create-contract.ts';
import { createAppSet } from '../appsets/use-cases.ts';
import { getCluster, listClusters } from '../clusters/use-cases.ts';
import { createRegistry } from '../registries/use-cases.ts';
import { createRepository } from '../repositories/use-cases.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';
import { readClusterObjects } from './from-cluster.ts';
import { type TakeOverOutcome, takeOver } from './take-over.ts';

/**
 * An import request: YAML text, or a cluster to read (exactly one; the schema says so); with apply, the cluster the
 * imported objects live in, so their controllers are told to let go ('' = the management cluster).
 */
export type ImportBody = ({ documents: string } | { from: { cluster: string } }) & {
  apply?: boolean | undefined;
  let_go_cluster?: string | undefined;
};

/** What was read from a cluster, as the answer says it. */
export interface ImportSourceAnswer {
  cluster: string;
  namespaces: string[];
  not_served: string[];
  notes: string[];
}

/** An entry of the answer: the report's, plus what apply did. */
export type AnsweredEntry = ImportEntry & { applied?: TakeOverOutcome };

/** The answer. */
export interface ImportAnswer {
  applied: boolean;
  entries: AnsweredEntry[];
  summary: ReturnType<typeof summarize> & { created: number; failed: number };
  source?: ImportSourceAnswer;
}

/**
 * Maps the documents (422 when they are not YAML objects); with `apply`, creates the mapped objects. Needs
 * `deployment:read` somewhere; each create needs its own permission.
 */
export const importObjects = useCase({
  permission: 'deployment:read',
  where: 'anywhere',
  act: async (ctx, body: ImportBody): Promise<ImportAnswer> => {
    const { docs, source } =
      'from' in body ? await readCluster(ctx, body.from.cluster) : { docs: documentsOf(body.documents) };
    const { report, credentials } = mapImport(docs, {
      clusters: await clusterNames(ctx),
      ...(source ? { inCluster: source.cluster } : {}),
    });
    const entries: AnsweredEntry[] = report.entries.map(refusedByCreateRules);
    if (body.apply === true) await applyAll(ctx, entries, credentials, body.let_go_cluster);
    const count = (status: 'created' | 'failed') => entries.filter((e) => e.applied?.status === status).length;
    return {
      applied: body.apply === true,
      entries,
      summary: { ...summarize(entries), created: count('created'), failed: count('failed') },
      ...(source ? { source } : {}),
    };
  },
});

/**
 * The objects of a cluster (src/api/import/from-cluster.ts). A registered cluster needs `cluster:read` on it (404
 * when not registered in the org) and is read within its namespace allowlist, else everywhere its credentials see.
 * The management cluster is shared by every org: it needs `cluster:read` in the org and is read in the org's own
 * namespace only, so no org reads another's objects or Secrets there (docs/compatibility.md).
 */
async function readCluster(ctx: UseCaseContext, cluster: string) {
  let namespaces: string[];
  if (cluster === '') {
    ctx.require('cluster:read');
    namespaces = [orgNamespace(ctx.actor.org.slug)];
  } else {
    namespaces = (await ctx.run(getCluster, { name: cluster, shallow: true })).namespaces;
  }
  const conn = await ctx.services.destinations.connection(ctx.actor.org.id, cluster);
  const what = cluster === '' ? 'the management cluster' : `cluster "${cluster}"`;
  const read = await readClusterObjects(conn, { namespaces, what });
  return {
    docs: read.docs,
    source: { cluster, namespaces, not_served: read.notServed, notes: read.notes },
  };
}

/**
 * The documents of the text. Text the document's schema accepts but YAML does not (or a document that is not an
 * object) is 422: the OpenAPI document cannot state YAML's grammar (main's rule for CEL and the like).
 */
function documentsOf(text: string) {
  try {
    return parseImportDocuments(text);
  } catch (err) {
    if (err instanceof InputError) throw new UnprocessableError(err.message, { cause: err });
    throw err;
  }
}

/** svc cluster names by server URL and by name, of the clusters the caller may read (none without cluster:read). */
async function clusterNames(ctx: UseCaseContext): Promise<Record<string, string>> {
  try {
    const clusters = await ctx.run(listClusters, { shallow: true });
    return Object.fromEntries(clusters.flatMap((c) => [[c.serverURL, c.name] as const, [c.name, c.name] as const]));
  } catch (err) {
    if (err instanceof ForbiddenError) return {};
    throw err;
  }
}

/** An entry whose App the create rules refuse, as unmapped naming the rules (the payload itself is not kept). */
function refusedByCreateRules(entry: ImportEntry): ImportEntry {
  if (!entry.app) return entry;
  const problems = schemaProblems(AppCreateRequest, structuredClone(entry.app));
  if (problems.length === 0) {
    try {
      parseCreateRequest(structuredClone(entry.app));
    } catch (err) {
      if (!(err instanceof SvcError)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length === 0) return entry;
  const { app: _app, becomes: _becomes, ...rest } = entry;
  return { ...rest, result: 'unmapped', reason: `svc would refuse the App: ${problems.join('; ')}` };
}

/**
 * Creates repositories, registries, then Apps (taken over: ./take-over.ts) and AppSets; records each outcome on its
 * entry.
 */
async function applyAll(
  ctx: UseCaseContext,
  entries: AnsweredEntry[],
  credentials: ImportCredentials,
  letGoCluster: string | undefined,
): Promise<void> {
  const viaKey = ctx.actor.caller.kind === 'key';
  for (const entry of entries) {
    if (!entry.repository && !entry.registry) continue;
    if (viaKey) {
      entry.applied = {
        status: 'failed',
        error: 'repositories and registries are created with a session, not an API key',
      };
      continue;
    }
    entry.applied = await outcome(async () => {
      if (entry.repository) await ctx.run(createRepository, repositoryBody(entry.repository, credentials));
      else if (entry.registry) await ctx.run(createRegistry, registryBody(entry.registry, credentials));
    });
  }
  for (const entry of entries) {
    if (entry.app) entry.applied = await takeOver(ctx, entry, letGoCluster);
    // An AppSet through its own create (deployment:manage in the org, audited appset.create).
    else if (entry.appset) {
      const appset = entry.appset;
      entry.applied = await outcome(() => ctx.run(createAppSet, appset));
    }
  }
}

/** `created`, or `failed` with the message of an error svc raised on purpose (they never hold a secret). */
async function outcome(fn: () => Promise<unknown>): Promise<{ status: 'created' | 'failed'; error?: string }> {
  try {
    await fn();
    return { status: 'created' };
  } catch (err) {
    if (err instanceof SvcError) return { status: 'failed', error: err.message };
    throw err;
  }
}

function repositoryBody(r: NonNullable<ImportEntry['repository']>, credentials: ImportCredentials) {
  const c = credentials.repositories.get(r.name) ?? {};
  const body = {
    name: r.name,
    type: r.type,
    url: r.url,
    insecure: r.insecure,
    username: c.username,
    password: c.password,
    ssh_private_key: c.sshPrivateKey,
    known_hosts: c.knownHosts,
    ca: c.ca,
    tls_client_cert: c.tlsClientCert,
    tls_client_key: c.tlsClientKey,
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as typeof body;
}

function registryBody(r: NonNullable<ImportEntry['registry']>, credentials: ImportCredentials) {
  const c = credentials.registries.get(r.name);
  return { name: r.name, host: r.host, ...(c ? { username: c.username, password: c.password } : {}) };
}
