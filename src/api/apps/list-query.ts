/**
 * The query of `GET /apps` (filters, sort, keyset pagination): parsed once, then applied to the App cache's entries
 * in memory. Pure; no I/O. The contract's unfiltered answer (`{apps:[…]}`, every readable App sorted by name) is
 * what an empty query gives; any query parameter switches to a page (`limit` default 100) with `total`,
 * `next_cursor` and the cache's `resource_version` (where an event stream started after this page resumes).
 *
 * The cursor is keyset, not an offset: it carries the sort key and name of the last App sent, so a page boundary
 * stays put while Apps are created, deleted or change state between pages (nothing is skipped or repeated unless
 * it moved across the boundary).
 */
import { HEALTH_STATUSES, SYNC_STATUSES } from '../../core/app-schema.ts';
import { InputError, UnprocessableError } from '../../core/errors.ts';
import type { AppView } from './view.ts';

/** Sort orders of the list; `-` reverses. `health` and `sync` put the worst first. */
export const LIST_SORTS = ['name', '-name', 'updated', '-updated', 'health', 'sync'] as const;
export type ListSort = (typeof LIST_SORTS)[number];

/** Largest page. */
export const LIST_LIMIT_MAX = 1000;
/** Page size when a query is given without `limit`. */
export const LIST_LIMIT_DEFAULT = 100;

/** The raw query string parameters of `GET /apps`. */
export interface ListQueryParams {
  q?: string;
  sync?: string;
  health?: string;
  cluster?: string;
  namespace?: string;
  sort?: string;
  limit?: string;
  cursor?: string;
}

/** A parsed list query. `paged` is false for the contract's unfiltered answer. */
export interface ListQuery {
  paged: boolean;
  q: string;
  sync: ReadonlySet<string> | undefined;
  health: ReadonlySet<string> | undefined;
  cluster: string | undefined;
  namespace: string | undefined;
  sort: ListSort;
  limit: number;
  after: Cursor | undefined;
}

/** Where a page ends: the sort it belongs to, and the sort key and name of its last App. */
interface Cursor {
  sort: ListSort;
  key: string | number;
  name: string;
}

/** Worst first: the order `health` sorts by (unknown values last). */
const HEALTH_RANK: Record<string, number> = { Degraded: 0, Missing: 1, Progressing: 2, Unknown: 3, Healthy: 4 };
const SYNC_RANK: Record<string, number> = { OutOfSync: 0, Syncing: 1, Unknown: 2, Synced: 3 };

function enumSet(name: string, raw: string | undefined, allowed: readonly string[]): ReadonlySet<string> | undefined {
  if (raw === undefined || raw === '') return undefined;
  const values = raw.split(',');
  for (const v of values) {
    if (!allowed.includes(v)) throw new InputError(`${name} must be a comma-separated list of ${allowed.join(', ')}`);
  }
  return new Set(values);
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.key, c.name])).toString('base64url');
}

function decodeCursor(raw: string, sort: ListSort): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw new UnprocessableError('cursor is not one this server issued');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    (typeof parsed[1] !== 'string' && typeof parsed[1] !== 'number') ||
    typeof parsed[2] !== 'string'
  ) {
    throw new UnprocessableError('cursor is not one this server issued');
  }
  if (parsed[0] !== sort) throw new InputError('cursor belongs to another sort order: start again without it');
  return { sort, key: parsed[1], name: parsed[2] };
}

/**
 * Parses the query of `GET /apps`: InputError (400) for values outside their sets (the route's schema refuses them
 * first), UnprocessableError (422) for a cursor this server did not issue, or one of another sort.
 */
export function parseListQuery(params: ListQueryParams): ListQuery {
  const paged = Object.values(params).some((v) => v !== undefined);
  const sort = (params.sort ?? 'name') as ListSort;
  if (!LIST_SORTS.includes(sort)) throw new InputError(`sort must be one of ${LIST_SORTS.join(', ')}`);
  const limit = params.limit === undefined ? LIST_LIMIT_DEFAULT : Number(params.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT_MAX) {
    throw new InputError(`limit must be an integer from 1 to ${LIST_LIMIT_MAX}`);
  }
  return {
    paged,
    q: (params.q ?? '').trim().toLowerCase(),
    sync: enumSet('sync', params.sync, SYNC_STATUSES),
    health: enumSet('health', params.health, HEALTH_STATUSES),
    // Present but empty means the management cluster (destination.cluster "").
    cluster: params.cluster,
    namespace: params.namespace === '' ? undefined : params.namespace,
    sort,
    limit: paged ? limit : Number.MAX_SAFE_INTEGER,
    after: params.cursor ? decodeCursor(params.cursor, sort) : undefined,
  };
}

/** Where the source comes from, for the text search: a Git URL or an image repository. */
function sourceText(view: AppView): string {
  const s = view.source as { git?: { repoURL?: string }; image?: { repository?: string } };
  return s.git?.repoURL ?? s.image?.repository ?? '';
}

/** Whether an App's view passes the query's filters. */
export function matches(query: ListQuery, view: AppView): boolean {
  if (query.sync && !query.sync.has(view.sync_status)) return false;
  if (query.health && !query.health.has(view.health)) return false;
  if (query.cluster !== undefined && view.cluster !== query.cluster) return false;
  if (query.namespace !== undefined && view.namespace !== query.namespace) return false;
  if (query.q === '') return true;
  return (
    view.name.toLowerCase().includes(query.q) ||
    view.namespace.toLowerCase().includes(query.q) ||
    view.cluster.toLowerCase().includes(query.q) ||
    sourceText(view).toLowerCase().includes(query.q) ||
    view.revision.startsWith(query.q)
  );
}

/** The sort key of a view under `sort` (names break ties separately). */
function keyOf(sort: ListSort, view: AppView): string | number {
  switch (sort) {
    case 'updated':
    case '-updated':
      return view.updated_at;
    case 'health':
      return HEALTH_RANK[view.health] ?? 9;
    case 'sync':
      return SYNC_RANK[view.sync_status] ?? 9;
    default:
      return view.name;
  }
}

function compareKeys(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Total order of `sort`: the key (reversed for `-…` sorts), then the name in code-unit order. */
function comparePositions(sort: ListSort, a: { key: string | number; name: string }, b: typeof a): number {
  const byKey = compareKeys(a.key, b.key) * (sort.startsWith('-') ? -1 : 1);
  if (byKey !== 0) return byKey;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** One page of a list. */
export interface ListPage<T> {
  items: T[];
  /** Apps matching the filters (all pages). */
  total: number;
  /** The cursor of the next page, or null on the last. */
  nextCursor: string | null;
}

/**
 * The page of `entries` (already readable by the caller) the query asks for: filtered, sorted, after the cursor,
 * at most `limit`. The unpaged query keeps the input order (the cache's order by name).
 */
export function pageOf<T extends { view: AppView }>(query: ListQuery, entries: readonly T[]): ListPage<T> {
  const matching = entries.filter((e) => matches(query, e.view));
  if (!query.paged) return { items: matching, total: matching.length, nextCursor: null };
  const sort = query.sort;
  const positioned = matching.map((e) => ({ e, key: keyOf(sort, e.view), name: e.view.name }));
  positioned.sort((a, b) => comparePositions(sort, a, b));
  const after = query.after;
  const start = after ? positioned.findIndex((p) => comparePositions(sort, p, after) > 0) : 0;
  const from = start === -1 ? positioned.length : start;
  const slice = positioned.slice(from, from + query.limit);
  const last = slice[slice.length - 1];
  const more = from + slice.length < positioned.length;
  return {
    items: slice.map((p) => p.e),
    total: matching.length,
    nextCursor: more && last ? encodeCursor({ sort, key: last.key, name: last.name }) : null,
  };
}
