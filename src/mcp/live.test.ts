import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { AppDiff } from '../api/apps/diff-service.ts';
import { capHead, DIFF_OBJECTS_MAX, diffDigest, readLogTail, TEXT_CAP_BYTES } from './live.ts';

describe('bounded live tool results', () => {
  it('cuts a long text at a line end within the cap and says so', () => {
    expect(capHead('a\nb\n', 10)).toEqual({ text: 'a\nb\n', truncated: false });
    expect(capHead('aaaa\nbbbb\ncccc\n', 12)).toEqual({ text: 'aaaa\nbbbb\n', truncated: true });
  });

  it('digests a diff: only differing objects, no live/desired YAML, the unified diff capped', () => {
    const object = (i: number, status: 'same' | 'changed') => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: `c${i}`,
      namespace: 'ns',
      status,
      live: 'data: {}',
      desired: 'data: {x: 1}',
      patch: '',
    });
    const diff: AppDiff = {
      name: 'web',
      namespace: 'ns',
      sync_status: 'OutOfSync',
      drifted: false,
      recorded_sync_status: 'OutOfSync',
      revision: { applied: 'a', compared: 'b', head: 'b' },
      summary: { same: 1, changed: DIFF_OBJECTS_MAX + 1, missing: 0, extra: 0 },
      objects: [object(0, 'same'), ...Array.from({ length: DIFF_OBJECTS_MAX + 1 }, (_, i) => object(i + 1, 'changed'))],
      unified: `${'-x\n+y\n'.repeat(TEXT_CAP_BYTES / 3)}`,
    };
    const digest = diffDigest(diff);
    const objects = digest['objects'] as Record<string, unknown>[];
    expect(objects).toHaveLength(DIFF_OBJECTS_MAX);
    expect(objects[0]).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'c1', status: 'changed' });
    expect(Buffer.byteLength(digest['unified'] as string)).toBeLessThanOrEqual(TEXT_CAP_BYTES);
    expect(digest['truncated']).toBe(true);
    expect(digest['summary']).toEqual(diff.summary);
  });

  it('lists a drifted object with the fields another writer took', () => {
    const drift = { fields: ['spec.replicas'], taken_by: ['kubectl'] };
    const base = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'ns', live: '', desired: '' };
    const diff: AppDiff = {
      name: 'web',
      namespace: 'ns',
      sync_status: 'OutOfSync',
      drifted: true,
      recorded_sync_status: 'OutOfSync',
      revision: { applied: 'a', compared: 'a', head: 'a' },
      summary: { same: 1, changed: 1, missing: 0, extra: 0 },
      objects: [
        { ...base, status: 'changed', patch: '-x\n+y\n', drift },
        { ...base, name: 'other', status: 'same', patch: '' },
      ],
      unified: '-x\n+y\n',
    };
    const objects = diffDigest(diff)['objects'] as Record<string, unknown>[];
    expect(objects).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ns', name: 'web', status: 'changed', drift },
    ]);
  });

  it('keeps a short log whole and the newest lines of a long one', async () => {
    expect(await readLogTail(Readable.from([Buffer.from('one\ntw'), Buffer.from('o\n')]))).toEqual({
      lines: ['one', 'two'],
      truncated: false,
    });
    const line = (i: number) => `line ${String(i).padStart(6, '0')} ${'x'.repeat(80)}\n`;
    const long = Array.from({ length: 2000 }, (_, i) => Buffer.from(line(i)));
    const { lines, truncated } = await readLogTail(Readable.from(long));
    expect(truncated).toBe(true);
    expect(lines.at(-1)).toBe(line(1999).trimEnd());
    expect(lines.every((l) => /^line \d{6} x+$/.test(l))).toBe(true);
    expect(lines.join('\n').length).toBeLessThanOrEqual(TEXT_CAP_BYTES);
  });
});
