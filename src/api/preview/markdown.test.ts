import { describe, expect, it } from 'vitest';
import { previewMarkdown } from './markdown.ts';

describe('previewMarkdown', () => {
  const changed = {
    name: 'web',
    namespace: 'shop',
    appset: null,
    status: 'changed' as const,
    diff: {
      summary: { same: 1, changed: 1, missing: 1, extra: 0 },
      objects: [
        { kind: 'ConfigMap', name: 'settings', namespace: 'shop', status: 'changed' },
        { kind: 'Pod', name: 'probe', namespace: 'shop', status: 'missing' },
        { kind: 'Deployment', name: 'web', namespace: 'shop', status: 'same' },
      ],
      unified:
        '--- live/ConfigMap/shop/settings\n+++ desired/ConfigMap/shop/settings\n-  mode: blue\n+  mode: `green`\n',
    },
  };

  it('a row per App, the objects that change, the diff folded in a fence it cannot close', () => {
    const md = previewMarkdown('https://git.example/shop.git', 'refs/pull/7/head', [
      changed,
      { name: 'api-eu', namespace: 'eu', appset: 'api', status: 'unchanged', diff: { ...changed.diff, objects: [] } },
      { name: 'broken', namespace: 'x', appset: null, status: 'failed', error: 'render failed:\nbad | yaml' },
    ]);
    expect(md).toContain('### svc preview of `refs/pull/7/head`');
    expect(md).toContain('3 app(s) built from https://git.example/shop.git: 1 would change, 1 failed.');
    expect(md).toContain('| web | shop |  | 1 changed, 1 added, 0 removed, 1 unchanged |');
    expect(md).toContain('| api-eu | eu | api |');
    expect(md).toContain('| broken | x |  | failed: render failed: bad \\| yaml |');
    expect(md).toContain('- changed ConfigMap/settings\n- missing Pod/probe\n');
    expect(md).not.toContain('Deployment/web');
    expect(md).toContain('```diff\n--- live/ConfigMap/shop/settings');
    expect(md).not.toContain('#### api-eu');
  });

  it('says so when no App is built from the repository', () => {
    expect(previewMarkdown('https://git.example/none', 'main', [])).toBe(
      '### svc preview of `main`\n\n0 app(s) built from https://git.example/none: 0 would change, 0 failed.\n',
    );
  });
});

describe('previewMarkdown of AppSets at the ref', () => {
  const summary = { same: 0, changed: 0, missing: 2, extra: 0 };
  const objects = [{ kind: 'ConfigMap', name: 'b', namespace: 'b', status: 'missing' }];
  it('marks the Apps an AppSet would create or delete, and sums up each AppSet', () => {
    const md = previewMarkdown(
      'https://git.example/shop.git',
      'refs/pull/8/head',
      [
        {
          name: 'dir-b',
          namespace: 'b',
          appset: 'dirs',
          lifecycle: 'added',
          status: 'changed',
          diff: { summary, objects, unified: '' },
        },
        {
          name: 'dir-c',
          namespace: 'c',
          appset: 'dirs',
          lifecycle: 'removed',
          status: 'changed',
          diff: { summary: { same: 0, changed: 0, missing: 0, extra: 1 }, objects: [], unified: '' },
        },
      ],
      [
        { name: 'dirs', status: 'generated', apps: 2, errors: ['generators[0]: App "x": bad | name'] },
        { name: 'files', status: 'failed', error: 'gitFiles r: no such ref', apps: 0, errors: [] },
      ],
    );
    expect(md).toContain('| dir-b | b | dirs | new App: 0 changed, 2 added, 0 removed, 0 unchanged |');
    expect(md).toContain('| dir-c | c | dirs | App removed: 0 changed, 0 added, 1 removed, 0 unchanged |');
    expect(md).toContain('- AppSet **dirs**: generates 2 app(s) at this ref, 1 new, 1 removed\n');
    expect(md).toContain('  - generators[0]: App "x": bad \\| name\n');
    expect(md).toContain('- AppSet **files**: cannot be generated at this ref: gitFiles r: no such ref\n');
    expect(md).toContain('#### dir-b (new App of AppSet dirs)');
    expect(md).toContain('#### dir-c (App removed by AppSet dirs)');
  });
});
