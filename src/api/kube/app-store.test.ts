import { describe, expect, it } from 'vitest';
import type { AppResource } from '../../core/app-schema.ts';
import { AppStore } from './app-store.ts';

function app(name: string, resourceVersion: string, revision = '', namespace = 'org-a'): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name, namespace, resourceVersion, creationTimestamp: '2026-11-21T05:00:00Z' },
    spec: { source: { type: 'Git', git: { repoURL: 'https://g/x.git' } }, destination: { namespace: name } },
    status: { revision },
  };
}

const revisionOf = (store: AppStore, name: string) => store.entry('org-a', name)?.app.status?.revision;

describe('AppStore', () => {
  it('never replaces a version with an older or equal one', () => {
    const store = new AppStore();
    expect(store.upsert(app('web', '10', 'new'))).toBe(true);
    expect(store.upsert(app('web', '9', 'old'))).toBe(false);
    expect(store.upsert(app('web', '10', 'same'))).toBe(false);
    expect(revisionOf(store, 'web')).toBe('new');
    expect(store.upsert(app('web', '11', 'newer'))).toBe(true);
    expect(revisionOf(store, 'web')).toBe('newer');
  });

  it('keeps a deleted App deleted against older versions, and accepts a re-created one', () => {
    const store = new AppStore();
    store.upsert(app('web', '10'));
    expect(store.remove(app('web', '12'))).toBe(true);
    expect(store.upsert(app('web', '11', 'late'))).toBe(false);
    expect(store.entry('org-a', 'web')).toBeUndefined();
    expect(store.upsert(app('web', '13', 'again'))).toBe(true);
    expect(revisionOf(store, 'web')).toBe('again');
    // A delete older than the held version (of an earlier incarnation) does not remove the new one.
    expect(store.remove(app('web', '12'))).toBe(false);
    expect(revisionOf(store, 'web')).toBe('again');
  });

  it('after a list, refuses Apps the list no longer holds at or below its version, and keeps newer writes', () => {
    const store = new AppStore();
    store.upsert(app('gone', '5'));
    store.upsert(app('written', '30', 'mine'));
    store.replace([app('kept', '7'), app('written', '20', 'listed')], '25');
    expect(store.entry('org-a', 'gone')).toBeUndefined();
    expect(store.upsert(app('gone', '6'))).toBe(false);
    expect(revisionOf(store, 'written')).toBe('mine');
    expect(store.upsert(app('fresh', '26'))).toBe(true);
  });

  it('lists a namespace sorted by name with a view per resourceVersion', () => {
    const store = new AppStore();
    for (const [name, rv] of [
      ['web', '3'],
      ['api', '4'],
      ['db', '5'],
    ] as const) {
      store.upsert(app(name, rv));
    }
    store.upsert(app('other', '6', '', 'org-b'));
    expect(store.list('org-a').map((e) => e.app.metadata.name)).toEqual(['api', 'db', 'web']);
    const view = store.entry('org-a', 'web')?.view;
    expect(store.entry('org-a', 'web')?.view).toBe(view);
    store.upsert(app('web', '7', 'c2'));
    expect(store.entry('org-a', 'web')?.view).toMatchObject({ name: 'web', revision: 'c2' });
    expect(store.list('org-a').map((e) => e.view.revision)).toEqual(['', '', 'c2']);
    store.remove(app('db', '8'));
    expect(store.list('org-a').map((e) => e.app.metadata.name)).toEqual(['api', 'web']);
    expect(store.list('org-b')).toHaveLength(1);
    expect(store.list('org-c')).toEqual([]);
  });
});
