import { describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { pageOf, parseListQuery } from './list-query.ts';
import type { AppView } from './view.ts';

function view(name: string, over: Partial<AppView> = {}): { view: AppView } {
  return {
    view: {
      name,
      namespace: 'shop',
      cluster: '',
      source: { type: 'Git', git: { repoURL: `https://git.example/${name}.git` } },
      sync_policy: {},
      frozen: false,
      sync_status: 'Synced',
      health: 'Healthy',
      health_reason: '',
      revision: 'abc123',
      url: '',
      resources: [],
      conditions: [],
      depends_on: [],
      blocked_by: [],
      held_at: null,
      import_pending: null,
      updated_at: '2026-01-01T00:00:00.000Z',
      ...over,
    },
  };
}

const names = (items: { view: AppView }[]) => items.map((i) => i.view.name);

describe('GET /apps query', () => {
  const entries = [
    view('alpha', { health: 'Degraded', sync_status: 'OutOfSync', updated_at: '2026-01-03T00:00:00.000Z' }),
    view('beta', { namespace: 'web', cluster: 'east' }),
    view('gamma', { health: 'Progressing', updated_at: '2026-01-02T00:00:00.000Z' }),
    view('delta'),
  ];

  it('an empty query is the contract answer: every App, in the given order, unpaged', () => {
    const q = parseListQuery({});
    expect(q.paged).toBe(false);
    const page = pageOf(q, entries);
    expect(names(page.items)).toEqual(['alpha', 'beta', 'gamma', 'delta']);
    expect(page.nextCursor).toBeNull();
  });

  it('filters by text, sync, health, cluster and namespace', () => {
    expect(names(pageOf(parseListQuery({ q: 'ALP' }), entries).items)).toEqual(['alpha']);
    expect(names(pageOf(parseListQuery({ q: 'git.example/gam' }), entries).items)).toEqual(['gamma']);
    expect(names(pageOf(parseListQuery({ sync: 'OutOfSync' }), entries).items)).toEqual(['alpha']);
    expect(names(pageOf(parseListQuery({ health: 'Degraded,Progressing' }), entries).items)).toEqual([
      'alpha',
      'gamma',
    ]);
    expect(names(pageOf(parseListQuery({ cluster: 'east' }), entries).items)).toEqual(['beta']);
    expect(names(pageOf(parseListQuery({ cluster: '' }), entries).items)).toEqual(['alpha', 'delta', 'gamma']);
    expect(names(pageOf(parseListQuery({ namespace: 'web' }), entries).items)).toEqual(['beta']);
  });

  it('sorts, with the worst health first and newest first for -updated', () => {
    expect(names(pageOf(parseListQuery({ sort: 'health' }), entries).items)).toEqual([
      'alpha',
      'gamma',
      'beta',
      'delta',
    ]);
    expect(names(pageOf(parseListQuery({ sort: '-updated' }), entries).items)).toEqual([
      'alpha',
      'gamma',
      'beta',
      'delta',
    ]);
    expect(names(pageOf(parseListQuery({ sort: '-name' }), entries).items)).toEqual([
      'gamma',
      'delta',
      'beta',
      'alpha',
    ]);
  });

  it('pages with a keyset cursor that stays put when Apps are added before it', () => {
    const first = pageOf(parseListQuery({ limit: '2' }), entries);
    expect(names(first.items)).toEqual(['alpha', 'beta']);
    expect(first.total).toBe(4);
    const cursor = first.nextCursor ?? '';
    const grown = [view('aardvark'), ...entries];
    const second = pageOf(parseListQuery({ limit: '2', cursor }), grown);
    expect(names(second.items)).toEqual(['delta', 'gamma']);
    expect(second.nextCursor).toBeNull();
    expect(second.total).toBe(5);
  });

  it('refuses values outside their sets and cursors of another sort', () => {
    expect(() => parseListQuery({ sync: 'Fine' })).toThrow(InputError);
    expect(() => parseListQuery({ limit: '0' })).toThrow(/limit/);
    expect(() => parseListQuery({ limit: '5000' })).toThrow(/limit/);
    expect(() => parseListQuery({ sort: 'size' })).toThrow(/sort/);
    expect(() => parseListQuery({ cursor: 'garbage!' })).toThrow(/cursor/);
    const cursor = pageOf(parseListQuery({ limit: '1' }), entries).nextCursor ?? '';
    expect(() => parseListQuery({ cursor, sort: 'health' })).toThrow(/another sort/);
  });
});
