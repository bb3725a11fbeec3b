import { expect, it } from 'vitest';
import { CORE_SUITES, conformance, score } from './cel-conformance.ts';

// The numbers @bufbuild/cel 0.6.1 was chosen by (docs/operator.md "Custom health checks"): an upgrade may pass more
// of CEL's conformance cases, never fewer.
it('@bufbuild/cel passes at least the conformance cases it was chosen by', async () => {
  const results = await conformance('bufbuild');
  expect(score(results, CORE_SUITES)[0]).toBeGreaterThanOrEqual(1180);
  expect(score(results)[0]).toBeGreaterThanOrEqual(1711);
  expect(results['comparisons']).toEqual([406, 0]);
}, 60_000);
