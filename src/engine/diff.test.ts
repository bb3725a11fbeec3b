import { describe, expect, it } from 'vitest';
import { diffObject, stripNoise } from './diff.ts';

const secret = (data: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's', namespace: 'ns', ...extra },
  data,
});

describe('object diff', () => {
  it('strips what the apiserver writes by itself', () => {
    const live = stripNoise({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        resourceVersion: '7',
        uid: 'u',
        managedFields: [],
        creationTimestamp: 't',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      },
      status: { x: 1 },
    });
    expect(live).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  });

  it('never shows a Secret value, yet shows which keys change', () => {
    const live = secret({ same: 'c2FtZQ==', old: 'aHVudGVyMg==' }, { resourceVersion: '3' });
    const desired = secret({ same: 'c2FtZQ==', old: 'bmV3LXZhbHVl', added: 'YWRkZWQ=' });
    const d = diffObject({ rendered: desired, live, predicted: desired, inDesired: true });
    expect(d.status).toBe('changed');
    const text = JSON.stringify(d);
    for (const plain of ['c2FtZQ==', 'aHVudGVyMg==', 'bmV3LXZhbHVl', 'YWRkZWQ=', 'hunter2', 'new-value']) {
      expect(text).not.toContain(plain);
    }
    expect(d.patch).toContain('-  old: "******** (live)"');
    expect(d.patch).toContain('+  old: "******** (desired)"');
    expect(d.patch).toContain('+  added: "******** (desired)"');
    expect(d.patch).not.toMatch(/^[-+] {2}same:/m);
  });

  it('marks same, missing and extra objects', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { a: '1' } };
    expect(
      diffObject({
        rendered: cm,
        live: { ...cm, metadata: { ...cm.metadata, uid: 'x' } },
        predicted: cm,
        inDesired: true,
      }),
    ).toMatchObject({ status: 'same', patch: '' });
    expect(diffObject({ rendered: cm, live: undefined, predicted: cm, inDesired: true })).toMatchObject({
      status: 'missing',
      live: '',
    });
    const extra = diffObject({ rendered: cm, live: cm, predicted: undefined, inDesired: false });
    expect(extra).toMatchObject({ status: 'extra', desired: '' });
    expect(extra.patch).toContain('-  a: "1"');
  });
});
