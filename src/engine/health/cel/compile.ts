/**
 * Custom health checks in CEL (Flux's `healthCheckExprs` shape): for one apiVersion and kind, an expression that says
 * the object is `current` (Healthy), and optionally `inProgress` and `failed`. This module validates a check when
 * it is written (a 400 naming the compile error at the API; a stalled App when written with kubectl) and refuses,
 * before anything runs, what could cost without bound: over-long expressions, more than MAX_NODES nodes,
 * comprehensions (all, exists, map, filter…) nested deeper than MAX_NESTING, unknown functions and variables. What
 * still costs too much at run time is cut off by the sandbox (./sandbox.ts). Library: @bufbuild/cel (chosen on
 * CEL's conformance cases, docs/operator.md "Custom health checks").
 */
import { CelScalar, celEnv, parse } from '@bufbuild/cel';
import type { HealthCheck } from '../../../core/app-schema.ts';
import { InputError } from '../../../core/errors.ts';

/** One custom check as written in `spec.health.checks[]` and in an org's health checks. */
export type HealthCheckSpec = HealthCheck;

/** The expressions of a check, in the order they are evaluated (Flux's): inProgress, failed, current. */
export const CHECK_FIELDS = ['inProgress', 'failed', 'current'] as const;
export type CheckField = (typeof CHECK_FIELDS)[number];

/** The variables an expression sees: the object's top-level fields (missing ones are empty maps). */
export const CHECK_VARIABLES = ['apiVersion', 'kind', 'metadata', 'spec', 'status'] as const;

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 2048;
/** Most AST nodes an expression may have (macros count as the nodes they expand to). */
export const MAX_NODES = 400;
/** Deepest nesting of comprehensions: `a.all(x, b.exists(y, …))` is 2. */
export const MAX_NESTING = 2;

/** The environment every check is compiled and evaluated in: the standard library and the object's fields. */
export const checkEnv = celEnv({
  variables: Object.fromEntries(CHECK_VARIABLES.map((v) => [v, CelScalar.DYN])),
});

type Expr = ReturnType<typeof parse>['expr'];

/** Type names usable as values (`type(x) == string`). */
const TYPE_NAMES = new Set([
  'bool',
  'int',
  'uint',
  'double',
  'string',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
]);

interface Walk {
  nodes: number;
  scope: string[];
  depth: number;
}

/**
 * Validates one expression: throws InputError naming `where` and the problem (syntax error with its position,
 * unknown function or variable, a limit exceeded).
 */
export function validateExpression(where: string, text: string): void {
  if (text.trim() === '') throw new InputError(`${where}: expression is empty`);
  if (text.length > MAX_EXPRESSION_LENGTH) {
    throw new InputError(`${where}: expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(text);
  } catch (err) {
    throw new InputError(`${where}: ${(err as Error).message.split('\n')[0]}`);
  }
  const problem = walk(parsed.expr, { nodes: 0, scope: [], depth: 0 });
  if (problem) throw new InputError(`${where}: ${problem}`);
}

/** Validates every expression of a check; `where` names it (e.g. `spec.health.checks[0]`). */
export function validateCheck(where: string, check: HealthCheckSpec): void {
  if (!check.apiVersion || !check.kind) throw new InputError(`${where}: apiVersion and kind are required`);
  for (const field of CHECK_FIELDS) {
    const text = check[field];
    if (text === undefined) {
      if (field === 'current') throw new InputError(`${where}.current: is required`);
      continue;
    }
    validateExpression(`${where}.${field}`, text);
  }
}

/** The first problem of an AST, or undefined. */
function walk(expr: Expr | undefined, w: Walk): string | undefined {
  if (!expr) return undefined;
  if (++w.nodes > MAX_NODES) return `expression has more than ${MAX_NODES} nodes`;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr': {
      const name = kind.value.name;
      const known =
        w.scope.includes(name) || (CHECK_VARIABLES as readonly string[]).includes(name) || TYPE_NAMES.has(name);
      return known ? undefined : `unknown variable "${name}" (an expression sees ${CHECK_VARIABLES.join(', ')})`;
    }
    case 'selectExpr':
      return walk(kind.value.operand, w);
    case 'callExpr': {
      const fn = kind.value.function;
      if (!/^[_@!]/.test(fn) && !checkEnv.funcs.find(fn)) return `unknown function "${fn}"`;
      return walkAll([kind.value.target, ...kind.value.args], w);
    }
    case 'listExpr':
      return walkAll(kind.value.elements, w);
    case 'structExpr':
      return walkAll(
        kind.value.entries.flatMap((e) => [e.keyKind.case === 'mapKey' ? e.keyKind.value : undefined, e.value]),
        w,
      );
    case 'comprehensionExpr': {
      const c = kind.value;
      if (w.depth + 1 > MAX_NESTING) return `comprehensions nested deeper than ${MAX_NESTING}`;
      const outer = walkAll([c.iterRange, c.accuInit], w);
      if (outer) return outer;
      const inner: Walk = { ...w, depth: w.depth + 1, scope: [...w.scope, c.iterVar, c.iterVar2, c.accuVar] };
      const problem = walkAll([c.loopCondition, c.loopStep, c.result], inner);
      w.nodes = inner.nodes;
      return problem;
    }
    default:
      return undefined;
  }
}

function walkAll(exprs: (Expr | undefined)[], w: Walk): string | undefined {
  for (const e of exprs) {
    const problem = walk(e, w);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Validates an App's checks (`spec.health.checks`); throws InputError naming the first bad expression. The
 * operator imports this module only when an App has checks, so a process with none does not load the CEL library
 * (about 27 MiB of resident memory, bench/README.md, issue 29).
 */
export function validateAppChecks(checks: readonly HealthCheck[] | undefined): void {
  (checks ?? []).forEach((c, i) => {
    validateCheck(`spec.health.checks[${i}]`, c);
  });
}
