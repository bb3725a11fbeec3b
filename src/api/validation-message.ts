/**
 * Caller-facing sentences for schema-validation problems (Ajv's errors, `verbose` so each carries its schema): one
 * per problem, naming the field. A body that matches none of the variants of a union (`anyOf`: a secret store of
 * one provider or another, a scope of one kind or another) is described by the variant the caller meant — the one
 * whose discriminating fields (a `const` such as `type`, `provider`, `scope`) it matched — rather than by every
 * variant's complaints.
 */

/** One Ajv error, as Fastify hands it over. */
export interface AjvIssue {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: { description?: string; pattern?: string; properties?: Record<string, { const?: unknown }> };
  /** The value that failed (Ajv's verbose errors). */
  data?: unknown;
}

/** `a/b/c` as `a.b.c`. */
const dotted = (instancePath: string) => instancePath.replace(/^\//, '').replaceAll('/', '.');

/** A sentence for one problem that is not a union's. */
function sentence(context: string, issue: AjvIssue): string {
  const path = dotted(issue.instancePath);
  const where = path === '' ? context : path;
  if (issue.keyword === 'additionalProperties') {
    const field = String(issue.params['additionalProperty']);
    return `unknown field "${path === '' ? field : `${path}.${field}`}"`;
  }
  if (issue.keyword === 'enum' && Array.isArray(issue.params['allowedValues'])) {
    return `${where} must be one of ${(issue.params['allowedValues'] as unknown[]).join(', ')}`;
  }
  if (issue.keyword === 'required') {
    return `${path === '' ? '' : `${path}.`}${String(issue.params['missingProperty'])} is required`;
  }
  const description = issue.parentSchema?.description;
  if (issue.keyword === 'pattern' && description)
    return `${where} must match the pattern ${issue.params['pattern']} (${description})`;
  return `${where} ${issue.message ?? 'is invalid'}`;
}

/** Which variant of `union` an issue is in. */
const variantOf = (union: string, schemaPath: string) => Number(schemaPath.slice(union.length + 1).split('/')[0]);

/**
 * Whether an issue says a discriminating field of the union's object (a direct child) has another value, or is
 * missing where the variant requires it to hold a `const`.
 */
function mismatches(issue: AjvIssue, unionPath: string): boolean {
  const child = issue.instancePath.slice(unionPath.length).split('/').filter(Boolean);
  if ((issue.keyword === 'const' || issue.keyword === 'enum') && child.length === 1) return true;
  if (issue.keyword !== 'required' || child.length !== 0) return false;
  const missing = String(issue.params['missingProperty']);
  return issue.parentSchema?.properties?.[missing]?.const !== undefined;
}

/** The sentences for `issues`, unions summarized (see the module comment). */
export function describeIssues(context: string, issues: readonly AjvIssue[]): string[] {
  // The outermost union first: its variants hold the unions nested in them.
  const union = issues
    .filter((i) => i.keyword === 'anyOf')
    .sort((a, b) => a.instancePath.length - b.instancePath.length || a.schemaPath.length - b.schemaPath.length)[0];
  if (!union) return issues.map((i) => sentence(context, i));
  const unionPath = union.schemaPath;
  const inside = issues.filter(
    (i) => i.schemaPath.startsWith(`${unionPath}/`) && i.instancePath.startsWith(union.instancePath),
  );
  const rest = issues.filter((i) => i !== union && !inside.includes(i));
  const variants = new Map<number, AjvIssue[]>();
  for (const i of inside) {
    const variant = variantOf(unionPath, i.schemaPath);
    variants.set(variant, [...(variants.get(variant) ?? []), i]);
  }
  const meant = [...variants.values()].filter((v) => !v.some((i) => mismatches(i, union.instancePath)));
  const where = dotted(union.instancePath) || context;
  let here: string[];
  if (meant.length === 1) here = describeIssues(context, meant[0] ?? []);
  else if (meant.length > 1 && union.parentSchema?.description) here = [`${where}: ${union.parentSchema.description}`];
  else if (meant.length > 1) here = describeIssues(context, meant.sort((a, b) => a.length - b.length)[0] ?? []);
  else {
    const description = union.parentSchema?.description;
    here = [`${discriminators(where, inside, union)}${description ? ` (${description})` : ''}`];
  }
  return [...here, ...describeIssues(context, rest)];
}

/**
 * "type/provider must be one of vault/vault, vault/openbao, sops/age, eso/eso": the values of the discriminating
 * fields (those some variant holds to a `const` the body missed), variant by variant. A variant's field the body
 * matched has the body's value (`data`, Ajv's verbose errors).
 */
function discriminators(where: string, inside: readonly AjvIssue[], union: AjvIssue): string {
  const unionPath = union.schemaPath;
  const mismatched = inside.filter((i) => i.keyword === 'const' && mismatches(i, union.instancePath));
  const fields = [...new Set(mismatched.map((i) => dotted(i.instancePath)))];
  if (fields.length === 0) return `${where} matches none of the forms it may take`;
  const given = new Map(mismatched.map((i) => [dotted(i.instancePath), String(i.data)]));
  const variants = new Map<string, string>();
  for (const i of inside) {
    const variant = i.schemaPath.slice(unionPath.length + 1).split('/')[0] ?? '';
    if (variants.has(variant)) continue;
    const values = fields.map((f) => {
      const own = mismatched.find(
        (m) => dotted(m.instancePath) === f && m.schemaPath.startsWith(`${unionPath}/${variant}/`),
      );
      return own ? String(own.params['allowedValue']) : (given.get(f) ?? '');
    });
    variants.set(variant, values.join('/'));
  }
  return `${fields.join('/')} must be one of ${[...new Set(variants.values())].join(', ')}`;
}
