/**
 * Runs CEL's published conformance cases (cel-spec v0.25.1, as @bufbuild/cel-spec packages its textproto files) against
 * a CEL library, and prints passed/failed per suite: `node scripts/cel-conformance.ts [bufbuild|cel-js]`. svc
 * chose @bufbuild/cel by these numbers (docs/operator.md "Custom health checks"); to compare with
 * @marcbachmann/cel-js, `npm install --no-save @marcbachmann/cel-js@8.0.0` first. scripts/cel-conformance.test.ts
 * keeps the chosen library's core-language score from falling on an upgrade.
 */
import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';

type Json = Record<string, unknown>;
type Value = Record<string, unknown>;
/** A result in one comparable shape for both libraries. */
type Canon = Json;

/** The core-language suites: no protobuf-message, wrapper, enum or extension suites. */
export const CORE_SUITES = [
  'basic',
  'comparisons',
  'conversions',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'macros2',
  'namespace',
  'parse',
  'plumbing',
  'string',
  'timestamps',
  'type_deductions',
];

const sortEntries = (e: [string, Canon][]) => e.sort((a, b) => (a[0] < b[0] ? -1 : 1));

function expected(v: Value): Canon {
  if ('int64Value' in v) return { int: String(v['int64Value']) };
  if ('uint64Value' in v) return { uint: String(v['uint64Value']) };
  if ('doubleValue' in v) return { double: String(Number(v['doubleValue'])) };
  if ('stringValue' in v) return { string: v['stringValue'] };
  if ('bytesValue' in v) return { bytes: v['bytesValue'] };
  if ('boolValue' in v) return { bool: v['boolValue'] };
  if ('nullValue' in v) return { null: true };
  if ('listValue' in v) return { list: ((v['listValue'] as { values?: Value[] }).values ?? []).map(expected) };
  if ('mapValue' in v) {
    const entries = (v['mapValue'] as { entries?: { key: Value; value: Value }[] }).entries ?? [];
    return { map: sortEntries(entries.map((e) => [JSON.stringify(expected(e.key)), expected(e.value)])) };
  }
  if ('typeValue' in v) return { type: v['typeValue'] };
  if ('enumValue' in v) return { int: String((v['enumValue'] as { value?: number }).value ?? 0) };
  return { unsupported: Object.keys(v)[0] };
}

interface Adapter {
  uint(v: bigint): unknown;
  run(t: Json): Canon;
}

function input(v: Value, a: Adapter): unknown {
  if ('int64Value' in v) return BigInt(String(v['int64Value']));
  if ('uint64Value' in v) return a.uint(BigInt(String(v['uint64Value'])));
  if ('doubleValue' in v) return Number(v['doubleValue']);
  if ('stringValue' in v) return v['stringValue'];
  if ('bytesValue' in v) return new Uint8Array(Buffer.from(String(v['bytesValue']), 'base64'));
  if ('boolValue' in v) return v['boolValue'];
  if ('nullValue' in v) return null;
  if ('listValue' in v) return ((v['listValue'] as { values?: Value[] }).values ?? []).map((x) => input(x, a));
  if ('mapValue' in v) {
    const entries = (v['mapValue'] as { entries?: { key: Value; value: Value }[] }).entries ?? [];
    return new Map(entries.map((e) => [input(e.key, a), input(e.value, a)]));
  }
  throw new Error(`unsupported binding ${Object.keys(v)[0]}`);
}

const bindingsOf = (t: Json, a: Adapter) =>
  Object.fromEntries(
    Object.entries((t['bindings'] ?? {}) as Record<string, { value: Value }>).map(([k, b]) => [k, input(b.value, a)]),
  );

async function bufbuild(): Promise<Adapter> {
  const cel = await import('@bufbuild/cel');
  const { strings } = await import('@bufbuild/cel/ext');
  const { getTestRegistry } = await import('@bufbuild/cel-spec/testdata/registry.js');
  const registry = getTestRegistry();
  const canon = (x: unknown): Canon => {
    if (typeof x === 'bigint') return { int: String(x) };
    if (cel.isCelUint(x)) return { uint: String(x.value) };
    if (typeof x === 'number') return { double: String(x) };
    if (typeof x === 'string') return { string: x };
    if (x instanceof Uint8Array) return { bytes: Buffer.from(x).toString('base64') };
    if (typeof x === 'boolean') return { bool: x };
    if (x === null) return { null: true };
    if (cel.isCelList(x)) return { list: [...x].map(canon) };
    if (cel.isCelMap(x)) return { map: sortEntries([...x].map(([k, v]) => [JSON.stringify(canon(k)), canon(v)])) };
    if (cel.isCelType(x)) return { type: x.name };
    return { other: String(x) };
  };
  const a: Adapter = {
    uint: (v) => cel.celUint(v),
    run(t) {
      const r = cel.run(String(t['expr']), bindingsOf(t, a) as never, {
        registry,
        namespace: String(t['container'] ?? ''),
        funcs: strings,
      });
      if (cel.isCelError(r)) throw r;
      return canon(r);
    },
  };
  return a;
}

async function celJs(): Promise<Adapter> {
  const name = '@marcbachmann/cel-js';
  const cel = (await import(name)) as {
    Environment: new (o: Json) => { evaluate(e: string, c: Json): unknown };
    evaluate(e: string): { constructor: new (v: bigint) => unknown };
  };
  const Uint = cel.evaluate('1u').constructor;
  const canon = (x: unknown): Canon => {
    if (typeof x === 'bigint') return { int: String(x) };
    if ((x as { constructor?: { name?: string } })?.constructor?.name === 'UnsignedInt')
      return { uint: String((x as { value: unknown }).value) };
    if (typeof x === 'number') return { double: String(x) };
    if (typeof x === 'string') return { string: x };
    if (x instanceof Uint8Array) return { bytes: Buffer.from(x).toString('base64') };
    if (typeof x === 'boolean') return { bool: x };
    if (x === null) return { null: true };
    if (Array.isArray(x)) return { list: x.map(canon) };
    if (x instanceof Map) return { map: sortEntries([...x].map(([k, v]) => [JSON.stringify(canon(k)), canon(v)])) };
    if ((x as { constructor?: { name?: string } })?.constructor?.name === 'Type')
      return { type: String((x as { name?: string }).name ?? x) };
    if (x && typeof x === 'object' && x.constructor === Object) {
      return { map: sortEntries(Object.entries(x).map(([k, v]) => [JSON.stringify({ string: k }), canon(v)])) };
    }
    return { other: String(x) };
  };
  const a: Adapter = {
    uint: (v) => new Uint(v),
    run(t) {
      const env = new cel.Environment({
        unlistedVariablesAreDyn: true,
        enableOptionalTypes: true,
        homogeneousAggregateLiterals: false,
      });
      return canon(env.evaluate(String(t['expr']), bindingsOf(t, a)));
    },
  };
  return a;
}

/** Passed and failed cases per top-level suite (check-only cases left out). */
export async function conformance(library: 'bufbuild' | 'cel-js'): Promise<Record<string, [number, number]>> {
  const a = library === 'bufbuild' ? await bufbuild() : await celJs();
  const out: Record<string, [number, number]> = {};
  const walk = (s: { name: string; tests?: { original: Json }[]; suites?: unknown[] }, top: string) => {
    for (const { original: t } of s.tests ?? []) {
      if (t['checkOnly']) continue;
      let ok: boolean;
      try {
        const got = a.run(t);
        const typed = t['typedResult'] as { result?: Value } | undefined;
        const want = (t['value'] ?? typed?.result) as Value | undefined;
        ok = !t['evalError'] && (want ? JSON.stringify(got) === JSON.stringify(expected(want)) : got['bool'] === true);
      } catch {
        ok = Boolean(t['evalError']);
      }
      const tally = out[top] ?? [0, 0];
      tally[ok ? 0 : 1]++;
      out[top] = tally;
    }
    for (const c of (s.suites ?? []) as (typeof s)[]) walk(c, top || c.name);
  };
  walk(tests as never, '');
  return out;
}

/** Passed / all over `suites`. */
export function score(results: Record<string, [number, number]>, suites = Object.keys(results)): [number, number] {
  return suites.reduce<[number, number]>(
    (acc, s) => [acc[0] + (results[s]?.[0] ?? 0), acc[1] + (results[s]?.[0] ?? 0) + (results[s]?.[1] ?? 0)],
    [0, 0],
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const library = (process.argv[2] ?? 'bufbuild') as 'bufbuild' | 'cel-js';
  const results = await conformance(library);
  const [p, n] = score(results);
  const [cp, cn] = score(results, CORE_SUITES);
  for (const [suite, [ok, bad]] of Object.entries(results))
    console.log(`${suite.padEnd(16)} ${ok} passed, ${bad} failed`);
  console.log(`${library}: all suites ${p}/${n}, core language ${cp}/${cn}`);
}
