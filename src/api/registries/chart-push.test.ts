import { describe, expect, it } from 'vitest';
import type { AppResource } from '../../core/app-schema.ts';
import { chartPushMatches } from './chart-push.ts';

function app(repoURL: string, version: string | undefined, more: Partial<AppResource['spec']> = {}): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'web', namespace: 'org-x' },
    spec: {
      source: { type: 'HelmChart', helmChart: { repoURL, chart: 'web', ...(version ? { version } : {}) } },
      destination: { namespace: 'd' },
      syncPolicy: { automated: true },
      ...more,
    },
  };
}

describe('which HelmChart Apps a pushed chart version concerns', () => {
  it('the automated, unfrozen Apps on that registry and chart whose range allows the pushed version', () => {
    expect(
      chartPushMatches(app('oci://reg.example:5000/charts', '^1.0.0'), 'reg.example:5000', 'charts/web', '1.2.0'),
    ).toBe(true);
    expect(chartPushMatches(app('oci://reg.example:5000', undefined), 'REG.example:5000', 'web', '3.0.0')).toBe(true);
    expect(
      chartPushMatches(
        app('oci://reg.example:5000/charts', '1.0.0+build.1'),
        'reg.example:5000',
        'charts/web',
        '1.0.0_build.1',
      ),
    ).toBe(true);
  });

  it('not a version outside the range, another chart, registry or path, nor a frozen or manual App', () => {
    const url = 'oci://reg.example:5000/charts';
    expect(chartPushMatches(app(url, '^1.0.0'), 'reg.example:5000', 'charts/web', '2.0.0')).toBe(false);
    expect(chartPushMatches(app(url, '^1.0.0'), 'reg.example:5000', 'charts/api', '1.1.0')).toBe(false);
    expect(chartPushMatches(app(url, '^1.0.0'), 'other.example', 'charts/web', '1.1.0')).toBe(false);
    expect(chartPushMatches(app(url, '^1.0.0'), 'reg.example:5000', 'web', '1.1.0')).toBe(false);
    expect(chartPushMatches(app(url, '^1.0.0', { freeze: true }), 'reg.example:5000', 'charts/web', '1.1.0')).toBe(
      false,
    );
    expect(
      chartPushMatches(
        app(url, '^1.0.0', { syncPolicy: { automated: false } }),
        'reg.example:5000',
        'charts/web',
        '1.1.0',
      ),
    ).toBe(false);
    expect(chartPushMatches(app('https://charts.example', '^1.0.0'), 'charts.example', 'web', '1.1.0')).toBe(false);
  });
});
