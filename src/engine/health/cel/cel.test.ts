import { afterAll, describe, expect, it } from 'vitest';
import { validateCheck, validateExpression } from './compile.ts';
import { evaluateCheck } from './evaluate.ts';
import { CelSandbox } from './sandbox.ts';

const check = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  inProgress: "has(status.phase) && status.phase == 'Pending'",
  failed: "has(status.phase) && status.phase == 'Error'",
  current: "has(status.phase) && status.phase == 'Running'",
};
const widget = (phase?: string) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w' },
  status: phase ? { phase } : {},
});

describe('validation at write time', () => {
  it('names the compile error: syntax, unknown function, unknown variable', () => {
    expect(() => validateExpression('c.current', 'status.x ==')).toThrow(/^c\.current: .*expecting/);
    expect(() => validateExpression('c.current', 'frobnicate(status)')).toThrow(
      'c.current: unknown function "frobnicate"',
    );
    expect(() => validateExpression('c.current', 'self.x == 1')).toThrow('unknown variable "self"');
    expect(() => validateCheck('c', { ...check, current: '' })).toThrow('c.current: expression is empty');
  });
  it('refuses what could cost without bound: deep nesting, huge expressions', () => {
    expect(() => validateExpression('c', 'status.a.all(x, status.a.all(y, status.a.all(z, x + y + z > 0)))')).toThrow(
      'comprehensions nested deeper than 2',
    );
    expect(() => validateExpression('c', `[${Array.from({ length: 500 }, (_, i) => i).join(',')}].size() > 0`)).toThrow(
      /more than 400 nodes/,
    );
    expect(() => validateExpression('c', `'${'a'.repeat(3000)}' == ''`)).toThrow(/longer than 2048/);
    expect(() => validateCheck('c', check)).not.toThrow();
  });
});

describe('evaluation (Flux order: inProgress, failed, current)', () => {
  it('maps each expression to its health and names the matching one', () => {
    expect(evaluateCheck(check, widget('Running'))).toEqual({ status: 'Healthy' });
    expect(evaluateCheck(check, widget('Error'))).toEqual({
      status: 'Degraded',
      message: "custom check failed: has(status.phase) && status.phase == 'Error'",
    });
    expect(evaluateCheck(check, widget('Pending')).status).toBe('Progressing');
    expect(evaluateCheck(check, widget()).status).toBe('Progressing');
  });
  it('an evaluation error or a non-bool is Unknown', () => {
    expect(
      evaluateCheck({ ...check, inProgress: undefined, failed: undefined, current: 'status.phase == 1' }, widget())
        .status,
    ).toBe('Unknown');
    expect(
      evaluateCheck({ ...check, failed: undefined, inProgress: undefined, current: "status.phase + ''" }, widget('x')),
    ).toEqual({
      status: 'Unknown',
      message: 'custom check current did not yield a bool',
    });
  });
});

describe('sandbox', () => {
  const sandbox = new CelSandbox({ timeoutMs: 300 });
  afterAll(() => sandbox.stop());
  it('evaluates in the worker', async () => {
    expect(await sandbox.evaluate(check, widget('Error'))).toMatchObject({ status: 'Degraded' });
  });
  it('cuts off an evaluation past its cost limit, refuses the check from then on, and goes on with others', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => i);
    const hostile = {
      ...check,
      inProgress: undefined,
      failed: undefined,
      current: 'status.l.all(a, status.l.all(b, a + b >= 0))',
    };
    const started = Date.now();
    const cut = await sandbox.evaluate(hostile, { status: { l: big } });
    expect(cut.status).toBe('Unknown');
    expect(cut.message).toContain('cut off: it exceeded its cost limit (300 ms of CPU)');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(sandbox.isTripped(hostile)).toBe(true);
    // Refused at once afterwards, without running.
    expect((await sandbox.evaluate(hostile, { status: { l: [1] } })).message).toContain('cut off');
    expect(await sandbox.evaluate(check, widget('Running'))).toEqual({ status: 'Healthy' });
  });
  it('cuts off an evaluation that allocates past the worker memory', async () => {
    const grow = {
      ...check,
      inProgress: undefined,
      failed: undefined,
      current: 'status.l.map(a, status.l.map(b, status.s + status.s)).size() > 0',
    };
    const s = 'x'.repeat(10_000);
    const small = new CelSandbox({ timeoutMs: 20_000, memoryMb: 32 });
    const cut = await small.evaluate(grow, { status: { l: Array.from({ length: 2000 }, (_, i) => i), s } });
    await small.stop();
    expect(cut.status).toBe('Unknown');
    expect(cut.message).toContain('cut off');
  }, 30_000);
});
