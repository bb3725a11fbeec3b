/**
 * Evaluates a custom check against one live object, synchronously: the code the sandbox's worker runs
 * (./worker.ts). Order (Flux's): `inProgress` true → Progressing, `failed` true → Degraded, `current` true →
 * Healthy, none → Progressing; an expression that does not yield a bool, or fails (a missing field read without
 * `has()`), makes the health Unknown with the error. The generic rules 1–2 (being deleted, generation not yet
 * observed) come first and are applied by the caller.
 */
import { isCelError, parse, plan } from '@bufbuild/cel';
import type { Health, HealthStatus } from '../status.ts';
import { CHECK_FIELDS, CHECK_VARIABLES, type CheckField, checkEnv, type HealthCheckSpec } from './compile.ts';

/** A planned expression: bindings in, a value or a CelError out. */
type Program = (bindings: Record<string, unknown>) => unknown;

const OUTCOME: Record<CheckField, HealthStatus> = { inProgress: 'Progressing', failed: 'Degraded', current: 'Healthy' };

/** Compiled programs by expression text (checks change rarely; bounded so a churn of checks cannot grow it). */
const programs = new Map<string, Program>();
const MAX_PROGRAMS = 1000;

function programOf(text: string): Program {
  let p = programs.get(text);
  if (!p) {
    p = plan(checkEnv, parse(text)) as Program;
    if (programs.size >= MAX_PROGRAMS) programs.clear();
    programs.set(text, p);
  }
  return p;
}

/** The expression shortened for a message. */
export function shortExpression(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? `${one.slice(0, 77)}...` : one;
}

/** Health of `obj` by `check` (expressions already validated). */
export function evaluateCheck(check: HealthCheckSpec, obj: Record<string, unknown>): Health {
  const bindings = Object.fromEntries(
    CHECK_VARIABLES.map((v) => [v, obj[v] ?? (v === 'apiVersion' || v === 'kind' ? '' : {})]),
  );
  for (const field of CHECK_FIELDS) {
    const text = check[field];
    if (text === undefined) continue;
    let result: unknown;
    try {
      result = programOf(text)(bindings as never);
    } catch (err) {
      result = err;
    }
    if (isCelError(result) || result instanceof Error) {
      return { status: 'Unknown', message: `custom check ${field} failed to evaluate: ${(result as Error).message}` };
    }
    if (typeof result !== 'boolean') {
      return { status: 'Unknown', message: `custom check ${field} did not yield a bool` };
    }
    if (result) {
      const status = OUTCOME[field];
      return status === 'Healthy' ? { status } : { status, message: `custom check ${field}: ${shortExpression(text)}` };
    }
  }
  return { status: 'Progressing', message: 'custom check: no expression matched yet' };
}
