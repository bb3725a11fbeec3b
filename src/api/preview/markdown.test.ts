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
