import { describe, expect, it } from 'vitest';
import { MutationCache } from './mutation-cache.ts';

interface Obj {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  value?: string;
}
const obj = (resourceVersion: string, value = ''): Obj => ({
  metadata: { name: 'web', namespace: 'ns', resourceVersion },
  value,
});
const KEY = 'ns/web';

function cache(includeAdds: boolean) {
  let now = 1_000;
  const c = new MutationCache<Obj>({ ttlMs: 60_000, includeAdds, now: () => now });
  return { c, advance: (ms: number) => (now += ms) };
}

describe('MutationCache', () => {
  it('prefers a remembered write over an older cached copy until the cache is as new, then forgets it', () => {
    const { c } = cache(false);
    c.wrote(obj('10', 'mine'));
    expect(c.newest(KEY, obj('9', 'old'))?.value).toBe('mine');
    expect(c.size).toBe(1);
    expect(c.newest(KEY, obj('10', 'watched'))?.value).toBe('watched');
    expect(c.size).toBe(0);
  });

  it('keeps the newest write when answers arrive out of order', () => {
    const { c } = cache(false);
    c.wrote(obj('12', 'second'));
    c.wrote(obj('11', 'first, answered late'));
    expect(c.written(KEY)?.value).toBe('second');
  });

  it('answers a remembered write for a key the cache lacks only with includeAdds', () => {
    const adds = cache(true).c;
    adds.wrote(obj('5', 'created'));
    expect(adds.newest(KEY, undefined)?.value).toBe('created');
    const noAdds = cache(false).c;
    noAdds.wrote(obj('5', 'created'));
    expect(noAdds.newest(KEY, undefined)).toBeUndefined();
    expect(noAdds.size).toBe(0);
  });

  it('trusts the cache again once a write is older than the TTL', () => {
    const { c, advance } = cache(false);
    c.wrote(obj('10', 'mine'));
    advance(60_001);
    expect(c.newest(KEY, obj('9', 'old'))?.value).toBe('old');
    expect(c.size).toBe(0);
  });

  it('sweeps entries past their time on a later write, without a read', () => {
    const { c, advance } = cache(false);
    c.wrote(obj('10'));
    advance(61_000);
    c.wrote({ metadata: { name: 'other', namespace: 'ns', resourceVersion: '11' } });
    expect(c.size).toBe(1);
  });

  it('orders what the watch delivers against the remembered write', () => {
    const { c } = cache(false);
    c.wrote(obj('10', 'mine'));
    expect(c.delivered(obj('9'))).toMatchObject({ order: -1, written: { value: 'mine' } });
    expect(c.size).toBe(1);
    expect(c.delivered(obj('10'))).toMatchObject({ order: 0 });
    expect(c.size).toBe(0);
    expect(c.delivered(obj('11'))).toEqual({ written: undefined, order: undefined });
  });

  it('remembers a deletion: older answers are stale, the cached copy is hidden, a re-creation wins', () => {
    const { c } = cache(false);
    c.deleted(KEY, '12');
    expect(c.deletedSince(KEY, '11')).toBe(true);
    expect(c.deletedSince(KEY, '12')).toBe(true);
    expect(c.deletedSince(KEY, '13')).toBe(false);
    expect(c.newest(KEY, obj('11'))).toBeUndefined();
    expect(c.newest(KEY, obj('13', 'again'))?.value).toBe('again');
    c.forgetDeletionsUpTo('12');
    expect(c.deletedSince(KEY, '11')).toBe(false);
  });

  it('ignores a deletion older than a remembered write (an earlier incarnation), and forgets on a versionless one', () => {
    const { c } = cache(true);
    c.wrote(obj('20', 'new'));
    c.deleted(KEY, '15');
    expect(c.written(KEY)?.value).toBe('new');
    c.deleted(KEY, undefined);
    expect(c.written(KEY)).toBeUndefined();
  });

  it('yields to the cache when versions cannot be compared', () => {
    const { c } = cache(false);
    c.wrote(obj('opaque-1', 'mine'));
    expect(c.newest(KEY, obj('opaque-0', 'cached'))?.value).toBe('cached');
  });
});
