/**
 * Argo CD ApplicationSet placeholders in svc's template syntax (docs/migrate.md "Argo CD ApplicationSet"). Argo CD
 * writes `{{key}}` (its default "fasttemplate" mode) or, with `goTemplate: true`, Go template actions such as
 * `{{.path.basename}}` or `{{index .path.segments 1}}`. svc's template language (src/core/appset-template.ts) has
 * `{{ key }}` only: no functions, pipelines or conditions. A placeholder that reads one parameter is translated;
 * anything else (a function, a pipeline, `default`, `toJson`, an `if`) is reported and never guessed at. Pure.
 */

/** What became of one string of the template. */
export type Translated = { text: string } | { problem: string };

/** A key of svc's template grammar. */
const SVC_KEY = /^[A-Za-z0-9_][A-Za-z0-9_.[\]-]*$/;
/** Every `{{ … }}` action of a string, with Go's `{{-`/`-}}` trim markers. */
const ACTION = /\{\{(-?)([\s\S]*?)(-?)\}\}/g;

/** Go template mode's parameter names that svc spells differently (the git generators' `path` object). */
const GO_RENAMES: Record<string, string> = { 'path.path': 'path' };

/** The svc key a Go template action names, or undefined when it is more than one parameter. */
function goKey(action: string): string | undefined {
  const segment = /^index\s+\.path\.segments\s+(\d+)$/.exec(action);
  if (segment) return `path[${segment[1]}]`;
  const field = /^\.([A-Za-z0-9_][A-Za-z0-9_.-]*)$/.exec(action);
  if (!field) return undefined;
  const key = field[1] as string;
  if (key === 'path.segments') return undefined;
  return GO_RENAMES[key] ?? key;
}

/**
 * `value` with each Argo CD placeholder in svc's syntax, or the problem with the first one that is not a single
 * parameter. `goTemplate` says which of Argo CD's two modes the ApplicationSet uses.
 */
export function translatePlaceholders(value: string, goTemplate: boolean): Translated {
  let problem: string | undefined;
  const text = value.replace(ACTION, (whole, _l: string, inner: string) => {
    const action = inner.trim();
    const key = goTemplate ? goKey(action) : action;
    if (key === undefined || !SVC_KEY.test(key)) {
      problem ??= `${whole}: svc's template fills a placeholder with one parameter (no functions, pipelines or conditions)`;
      return whole;
    }
    return `{{ ${key} }}`;
  });
  return problem === undefined ? { text } : { problem };
}

/** Whether `value` holds an Argo CD placeholder at all. */
export const hasPlaceholder = (value: string): boolean => value.includes('{{');

/**
 * Every string value of `value` translated (a deep copy), and the problems, each naming its field below `where`.
 * Object keys are not templated (Argo CD does not template them either).
 */
export function translateDeep(value: unknown, goTemplate: boolean, where: string, problems: string[]): unknown {
  if (typeof value === 'string') {
    const t = translatePlaceholders(value, goTemplate);
    if ('problem' in t) {
      problems.push(`${where}: ${t.problem}`);
      return value;
    }
    return t.text;
  }
  if (Array.isArray(value)) return value.map((v, i) => translateDeep(v, goTemplate, `${where}[${i}]`, problems));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, translateDeep(v, goTemplate, `${where}.${k}`, problems)]),
    );
  }
  return value;
}
