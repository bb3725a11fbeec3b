/**
 * The AppSet template language (issue 27 item 1): `{{ key }}` placeholders in string values, filled from one
 * generator parameter set. Nothing else: no expressions, no functions, no code execution, no access to anything but
 * the parameters (Argo CD's default "fasttemplate" mode, without its Go-template mode). Keys are letters, digits and
 * `_ . - [ ]` (e.g. `cluster`, `path.basename`, `path[0]`, `metadata.labels.env`). A placeholder whose key no
 * generator can provide is refused when the AppSet is written; one a particular parameter set lacks fails that App
 * only (the AppSet's status names it). Object keys are never templated, only string values. Pure.
 */
import { InputError } from './errors.ts';

/** One parameter set: what one generated App's placeholders are filled from. */
export type Params = Readonly<Record<string, string>>;

/** A placeholder and its key. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_][A-Za-z0-9_.[\]-]*)\s*\}\}/g;
/** An opening `{{` that does not start a placeholder of the grammar above. */
const OPEN = /\{\{/g;

/** Every string value in `template` (depth-first), with its JSON path for messages. */
function* strings(template: unknown, path: string): Generator<[string, string]> {
  if (typeof template === 'string') yield [path, template];
  else if (Array.isArray(template)) {
    for (const [i, v] of template.entries()) yield* strings(v, `${path}[${i}]`);
  } else if (typeof template === 'object' && template !== null) {
    for (const [k, v] of Object.entries(template)) yield* strings(v, path ? `${path}.${k}` : k);
  }
}

/** The keys of the placeholders in `value`, and whether every `{{` in it opens one. */
function scan(value: string): { keys: string[]; malformed: boolean } {
  const keys = [...value.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
  const opens = value.match(OPEN)?.length ?? 0;
  return { keys, malformed: opens !== keys.length };
}

/** Every placeholder key used anywhere in `template`. */
export function placeholdersIn(template: unknown): Set<string> {
  const keys = new Set<string>();
  for (const [, value] of strings(template, '')) for (const key of scan(value).keys) keys.add(key);
  return keys;
}

/**
 * What is wrong with `template` given which keys the generators can provide (`known`): a `{{` that is not a
 * placeholder (`{{ key }}`), or a placeholder no generator provides. Each problem names the field. Empty when none.
 */
export function templateProblems(template: unknown, known: (key: string) => boolean, where = 'template'): string[] {
  const problems: string[] = [];
  for (const [path, value] of strings(template, where)) {
    const { keys, malformed } = scan(value);
    if (malformed) problems.push(`${path}: "{{" must start a placeholder {{ key }} (letters, digits, _ . - [ ])`);
    for (const key of keys) {
      if (!known(key)) problems.push(`${path}: unknown placeholder {{ ${key} }}: no generator provides it`);
    }
  }
  return problems;
}

/**
 * `template` with every placeholder replaced by its parameter (a deep copy; the template is not modified). Throws
 * InputError naming the field and key when `params` lacks a key the template uses.
 */
export function renderTemplate<T>(template: T, params: Params, where = 'template'): T {
  const fill = (value: unknown, path: string): unknown => {
    if (typeof value === 'string') {
      return value.replace(PLACEHOLDER, (_m, key: string) => {
        const param = params[key];
        if (param === undefined) throw new InputError(`${path}: this generator gives no parameter ${key}`);
        return param;
      });
    }
    if (Array.isArray(value)) return value.map((v, i) => fill(v, `${path}[${i}]`));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, `${path}.${k}`)]));
    }
    return value;
  };
  return fill(template, where) as T;
}
