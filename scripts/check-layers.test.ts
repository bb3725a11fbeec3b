import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');

/** Runs the layering check (scripts/check-layers.sh) on `dir`, answering its exit code and output. */
async function checkLayers(dir: string): Promise<{ code: number; output: string }> {
  const env = { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env['PATH'] ?? ''}` };
  try {
    const { stdout, stderr } = await run('bash', [join(root, 'scripts/check-layers.sh'), dir], { env });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

describe('the layering check', () => {
  it('fails on an import the layering forbids and on a cycle, naming both', async () => {
    const { code, output } = await checkLayers(join(root, 'scripts/layer-fixture'));
    expect(code).not.toBe(0);
    expect(output).toContain('error layer-api: src/api/wrong.ts → src/operator/reconcile.ts');
    expect(output).toMatch(/error no-cycles: src\/core\/ping\.ts →\s+src\/core\/pong\.ts →\s+src\/core\/ping\.ts/);
    expect(output).toContain('2 dependency violations');
  }, 60_000);
});
