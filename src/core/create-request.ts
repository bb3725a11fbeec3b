/**
 * The API's create payload for an App (contract §4.2 "Create fields" and rules) and its translation into the App
 * resource spec. Used by create, clone and preview, so each rejects bad input with the same messages.
 */
import { type AppSpec, AppSpecSchema } from './app-schema.ts';
import { sourceTypeProblem } from './app-state.ts';
import { InputError } from './errors.ts';
import { gitArgProblems } from './git-source-args.ts';
import { helmChartProblems } from './helm-chart.ts';
import { imageSourceProblems } from './image-ref.ts';
import { dnsLabelProblem } from './names.ts';
import { schemaProblems } from './validator.ts';
import { windowProblems } from './windows.ts';

/** The validated create request: the App's name, its destination, and the spec to store. */
export interface CreateRequest {
  name: string;
  namespace: string;
  cluster: string;
  spec: AppSpec;
}

/** Fields the create payload accepts; `notifications` and `webhook` go beyond the contract (docs/compatibility.md). */
const CREATE_FIELDS = new Set([
  'name',
  'namespace',
  'cluster',
  'source',
  'sync_policy',
  'notifications',
  'webhook',
  'health',
  'depends_on',
  'ignore_differences',
]);
const SOURCE_BLOCKS = { Git: 'git', Image: 'image', HelmChart: 'helmChart', Catalog: 'catalog' } as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sourceProblems(source: unknown): string[] {
  if (!isObject(source)) return ['source is required and must be an object'];
  const type = source['type'];
  // Only source types with a driver in the operator are accepted (app-state.ts), so nothing is created to fail.
  const typeProblem = sourceTypeProblem(type);
  if (typeProblem) return [typeProblem];
  const expected = SOURCE_BLOCKS[type as keyof typeof SOURCE_BLOCKS];
  const problems: string[] = [];
  for (const block of Object.values(SOURCE_BLOCKS)) {
    if (block !== expected && source[block] !== undefined) {
      problems.push(`source.${block} must not be set when source.type is ${type}`);
    }
  }
  const body = source[expected];
  if (!isObject(body)) return [...problems, `source.${expected} is required when source.type is ${type}`];
  // Fields that reach git/kustomize/helm command lines: nothing a tool could read as an option is stored.
  if (type === 'Git') problems.push(...gitArgProblems(body, 'source.git'));
  if (type === 'HelmChart') problems.push(...helmChartProblems(body, 'source.helmChart'));
  return problems;
}

/**
 * Validates an API create payload and builds the App spec it asks for. Throws InputError listing every problem:
 * DNS-1123 name, namespace and cluster; a deployable `source.type` (Git, Image or HelmChart: Catalog is not
 * supported yet) with exactly one source block matching it; Git needs a remote `git.repoURL` and command-line-safe
 * branch, path and helm/kustomize options (src/core/git-source-args.ts); HelmChart an http(s) or oci repoURL, a
 * chart name and a version or semver range (src/core/helm-chart.ts); Image needs a
 * repository, a tag or digest and a consistent workload (src/core/image-ref.ts); unknown fields and wrong types
 * anywhere. Schema defaults are filled in.
 */
export function parseCreateRequest(body: unknown): CreateRequest {
  if (!isObject(body)) throw new InputError('request body must be a JSON object');
  const cluster = body['cluster'] ?? '';
  const problems = payloadProblems(body, cluster);
  if (problems.length > 0) throw new InputError(problems.join('; '));
  const spec = specOf(body, cluster);
  return {
    name: body['name'] as string,
    namespace: body['namespace'] as string,
    cluster: cluster as string,
    spec,
  };
}

/** Unknown fields, names that are not DNS-1123 labels, and problems of the source block. */
function payloadProblems(body: Record<string, unknown>, cluster: unknown): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(body)) if (!CREATE_FIELDS.has(key)) problems.push(`unknown field "${key}"`);
  const names: [string, unknown][] = [
    ['name', body['name']],
    ['namespace', body['namespace']],
  ];
  if (cluster !== '') names.push(['cluster', cluster]);
  for (const [field, value] of names) {
    const problem = dnsLabelProblem(field, value);
    if (problem) problems.push(problem);
  }
  problems.push(...sourceProblems(body['source']));
  return problems;
}

/** The App spec the payload asks for, checked against the schema (defaults filled in) and the image rules. */
function specOf(body: Record<string, unknown>, cluster: unknown): AppSpec {
  const spec: Record<string, unknown> = {
    source: body['source'],
    destination: { namespace: body['namespace'], cluster },
  };
  if (body['sync_policy'] !== undefined) spec['syncPolicy'] = body['sync_policy'];
  if (body['notifications'] !== undefined) spec['notifications'] = body['notifications'];
  if (body['webhook'] !== undefined) spec['webhook'] = body['webhook'];
  if (body['health'] !== undefined) spec['health'] = body['health'];
  if (body['depends_on'] !== undefined) spec['dependsOn'] = body['depends_on'];
  if (body['ignore_differences'] !== undefined) spec['ignoreDifferences'] = body['ignore_differences'];
  const specProblems = schemaProblems(AppSpecSchema, spec).map((p) =>
    p
      .replace(/^syncPolicy/, 'sync_policy')
      .replace(/^destination\.namespace/, 'namespace')
      .replace(/^dependsOn/, 'depends_on')
      .replace(/^ignoreDifferences/, 'ignore_differences'),
  );
  if (specProblems.length > 0) throw new InputError(specProblems.join('; '));
  // Windows the schema admits but that cannot be evaluated (a bad cron field, an unknown time zone, a name used twice).
  const windowIssues = windowProblems((spec as AppSpec).syncPolicy?.windows ?? []);
  if (windowIssues.length > 0) throw new InputError(windowIssues.map((p) => `sync_policy.windows: ${p}`).join('; '));
  const image = (spec as AppSpec).source.image;
  const imageProblems = image ? imageSourceProblems(image, 'source.image') : [];
  if (imageProblems.length > 0) throw new InputError(imageProblems.join('; '));
  return spec as AppSpec;
}
