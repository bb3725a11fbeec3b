/**
 * The rule of test/harness/requirements.ts, proved by running vitest on a small test file whose group needs a
 * requirement that is missing: with CI set the run fails, naming what is missing; without CI the group is skipped
 * and a warning says so.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../harness/index.ts';

// Inside the repository, so the fixture resolves `vitest` from its node_modules.
const dir = mkdtempSync(join(repoRoot, '.requirements-'));
writeFileSync(join(dir, 'vitest.config.mjs'), "export default { test: { include: ['*.test.ts'] } };\n");
writeFileSync(
  join(dir, 'group.test.ts'),
  `import { expect, it } from 'vitest';
import { describeWith } from ${JSON.stringify(join(repoRoot, 'test/harness/requirements.ts'))};
describeWith({ what: 'frobnicator', missing: 'not on PATH' })('a group', () => {
  it('uses the frobnicator', () => expect(1).toBe(1));
});
`,
);

/** Runs vitest on the fixture with CI set or unset; its exit status and output. */
function runFixture(ci: string | undefined): { status: number | null; output: string } {
  const env = { ...process.env };
  delete env['CI'];
  if (ci !== undefined) env['CI'] = ci;
  const run = spawnSync(process.execPath, [join(repoRoot, 'node_modules/vitest/vitest.mjs'), 'run'], {
    cwd: dir,
    env: { ...env, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a missing tool or peer', () => {
  it('fails the run in CI, saying what is missing', () => {
    const { status, output } = runFixture('true');
    expect(status).toBe(1);
    expect(output).toContain('frobnicator is missing: not on PATH');
    expect(output).toMatch(/Tests\s+1 failed/);
  });

  it('skips the group loudly outside CI', () => {
    const { status, output } = runFixture(undefined);
    expect(status).toBe(0);
    expect(output).toContain('SKIPPED (not in CI): frobnicator is missing: not on PATH');
    expect(output).toMatch(/Tests\s+1 skipped/);
  });
});
