import { describe, expect, it } from 'vitest';
import { chartRevision, newestMatching, parseChartRevision } from './helm-chart.ts';

const D = `sha256:${'a'.repeat(64)}`;

describe('chart versions and revisions', () => {
  const listed = ['1.0.0', '1.2.0', '1.2.7', '1.3.0-rc.1', '1.9.1', '2.0.0', 'not-a-version'];

  it('picks the newest version a range allows, exact versions only themselves, never a version outside', () => {
    expect(newestMatching(listed, '1.2.x')).toBe('1.2.7');
    expect(newestMatching(listed, '^1.2.0')).toBe('1.9.1');
    expect(newestMatching(listed, '>=1.0 <2')).toBe('1.9.1');
    expect(newestMatching(listed, '*')).toBe('2.0.0');
    expect(newestMatching(listed, '1.2.0')).toBe('1.2.0');
    expect(newestMatching(listed, '3.x')).toBeUndefined();
    expect(newestMatching(listed, '1.3.0-rc.1')).toBe('1.3.0-rc.1');
    expect(newestMatching(listed, '~1.3.0-rc.0')).toBe('1.3.0-rc.1');
  });

  it('writes and reads <chart>@<version>@<digest>, and <chart>@<version> alone', () => {
    const text = chartRevision({ chart: 'web', version: '1.2.7', digest: D });
    expect(text).toBe(`web@1.2.7@${D}`);
    expect(parseChartRevision(text)).toEqual({ chart: 'web', version: '1.2.7', digest: D });
    expect(parseChartRevision('web@1.2.7')).toEqual({ chart: 'web', version: '1.2.7' });
    for (const bad of ['web', 'web@', '@1.0.0', 'web@one', `web@1.0.0@sha256:xyz`, `web@1.0.0@${D}@x`, '0123abc']) {
      expect(parseChartRevision(bad)).toBeUndefined();
    }
  });
});
