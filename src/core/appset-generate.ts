/**
 * What an AppSet generates (issue 27 item 1), from what its generators read: every parameter set of every generator
 * (./appset-params.ts), the template filled from each (./appset-template.ts), and each result checked as an App (its
 * name a DNS-1123 label, its spec valid against the App schema, its name made once). A set that fails is an error of
 * the AppSet's status and generates nothing; the others are generated. The operator supplies the inputs (registered
 * clusters, the files of a repository) and acts on the answer. Pure.
 */
import { isDeepStrictEqual } from 'node:util';
import { APP_API_VERSION, APP_KIND, APPSET_KIND, APPSET_LABEL, DELETE_POLICY_ANNOTATION } from './app-names.ts';
import { type AppResource, type AppSpec, AppSpecSchema } from './app-schema.ts';
import {
  type ClusterFacts,
  clusterParams,
  fileParams,
  matrixParams,
  mergeParams,
  pathParams,
  selects,
} from './appset-params.ts';
import type { AppSetResource, Generator, LeafGenerator } from './appset-schema.ts';
import { type Params, renderTemplate } from './appset-template.ts';
import { globRegExp } from './glob.ts';
import { dnsLabelProblem } from './names.ts';
import { schemaProblems } from './validator.ts';

/** What the generators read, supplied by the caller. */
export interface GeneratorInputs {
  /** The org's registered clusters and their labels. */
  clusters: readonly ClusterFacts[];
  /** The directories (paths relative to the root, `/`-separated) of a `gitDirectories` generator's repository. */
  directories(g: NonNullable<LeafGenerator['gitDirectories']>): readonly string[];
  /** The JSON or YAML files matching a `gitFiles` generator: path and parsed content. */
  files(g: NonNullable<LeafGenerator['gitFiles']>): readonly { path: string; content: unknown }[];
}

/** The Apps an AppSet generates and what went wrong. */
export interface Generated {
  apps: AppResource[];
  errors: string[];
}

/** The directories a `gitDirectories` generator selects: matching an included glob and no excluded one. */
export function selectDirectories(
  directories: readonly string[],
  rules: readonly { path: string; exclude?: boolean | undefined }[],
): string[] {
  const include = rules.filter((r) => r.exclude !== true).map((r) => globRegExp(r.path));
  const exclude = rules.filter((r) => r.exclude === true).map((r) => globRegExp(r.path));
  return directories.filter((d) => include.some((re) => re.test(d)) && !exclude.some((re) => re.test(d)));
}

/** The parameter sets of one stand-alone generator. */
function leafParams(g: LeafGenerator, inputs: GeneratorInputs): Params[] {
  if (g.list) return g.list.elements;
  if (g.clusters) {
    const { selector, includeManagement } = g.clusters;
    const picked = inputs.clusters.filter((c) => selects(selector, c.labels)).map(clusterParams);
    const selectsAll = Object.keys(selector?.matchLabels ?? {}).length === 0;
    return includeManagement === true && selectsAll ? [clusterParams({ name: '', labels: {} }), ...picked] : picked;
  }
  if (g.gitDirectories) {
    return selectDirectories(inputs.directories(g.gitDirectories), g.gitDirectories.directories).map(pathParams);
  }
  if (g.gitFiles) {
    return inputs
      .files(g.gitFiles)
      .flatMap((f) =>
        Array.isArray(f.content) ? f.content.map((c) => fileParams(f.path, c)) : [fileParams(f.path, f.content)],
      );
  }
  return [];
}

/** The parameter sets of a generator (matrix and merge combine their two children's). */
export function paramsOf(g: Generator, inputs: GeneratorInputs): Params[] {
  if (g.matrix) {
    const [a, b] = g.matrix.generators.map((c) => leafParams(c as LeafGenerator, inputs));
    return matrixParams(a ?? [], b ?? []);
  }
  if (g.merge) {
    const [a, b] = g.merge.generators.map((c) => leafParams(c as LeafGenerator, inputs));
    return mergeParams(a ?? [], b ?? [], g.merge.mergeKeys);
  }
  return leafParams(g, inputs);
}

/** The App one parameter set makes, or why it cannot be one. */
function appOf(appSet: AppSetResource, params: Params): AppResource | string {
  let filled: { name: string; labels: Record<string, string>; spec: AppSpec };
  try {
    // Rendered in the template's own shape, so a message names the template's field.
    const t = renderTemplate(appSet.spec.template, params);
    filled = { name: t.metadata.name, labels: t.metadata.labels ?? {}, spec: t.spec as AppSpec };
  } catch (err) {
    return (err as Error).message;
  }
  const problems = [
    dnsLabelProblem('template.metadata.name', filled.name),
    ...schemaProblems(AppSpecSchema, filled.spec, 'template.spec'),
  ];
  const found = problems.filter((p): p is string => typeof p === 'string');
  if (found.length > 0) return `App "${filled.name}": ${found.join('; ')}`;
  const owner = appSet.metadata;
  // preserveResourcesOnDeletion rides on each App's own delete policy: it holds however the App goes (the AppSet's
  // deletion cascading through the garbage collector, or sync dropping it).
  const preserve = appSet.spec.syncPolicy?.preserveResourcesOnDeletion === true;
  return {
    apiVersion: APP_API_VERSION,
    kind: APP_KIND,
    metadata: {
      name: filled.name,
      namespace: owner.namespace ?? '',
      labels: { ...filled.labels, [APPSET_LABEL]: owner.name },
      ...(preserve ? { annotations: { [DELETE_POLICY_ANNOTATION]: 'orphan' } } : {}),
      ownerReferences: [
        { apiVersion: APP_API_VERSION, kind: APPSET_KIND, name: owner.name, uid: owner.uid ?? '', controller: true },
      ],
    },
    spec: filled.spec,
  };
}

/**
 * The Apps `appSet` generates from `inputs`, in generator order, and the errors: a set whose template fails (a
 * missing key, an invalid App), and a name made twice (the first is kept).
 */
export function generateApps(appSet: AppSetResource, inputs: GeneratorInputs): Generated {
  const apps: AppResource[] = [];
  const errors: string[] = [];
  const names = new Set<string>();
  for (const [i, g] of appSet.spec.generators.entries()) {
    for (const params of paramsOf(g, inputs)) {
      const app = appOf(appSet, params);
      if (typeof app === 'string') errors.push(`generators[${i}]: ${app}`);
      else if (names.has(app.metadata.name))
        errors.push(`generators[${i}]: App "${app.metadata.name}" is generated twice`);
      else {
        names.add(app.metadata.name);
        apps.push(app);
      }
    }
  }
  return { apps, errors };
}

/** What an AppSet's reconcile does to its Apps. */
export interface AppSetPlan {
  create: AppResource[];
  /** Generated Apps whose spec or labels differ from what exists (each is the generated App). */
  update: AppResource[];
  /** Names of existing Apps of the AppSet no longer generated. */
  delete: string[];
}

/** True when `existing` already is `generated` (spec, the template's labels and the delete policy). */
function upToDate(existing: AppResource, generated: AppResource): boolean {
  const labels = generated.metadata.labels ?? {};
  const policy = (a: AppResource) => a.metadata.annotations?.[DELETE_POLICY_ANNOTATION];
  const same =
    Object.entries(labels).every(([k, v]) => existing.metadata.labels?.[k] === v) &&
    policy(existing) === policy(generated);
  const { operation: _op, ...spec } = existing.spec;
  // Deep equality, not text: the API server orders keys its own way, a filled-in template may not.
  return same && isDeepStrictEqual(spec, generated.spec);
}

/**
 * The plan of `applicationsSync` (Argo CD's policies): `create-only` creates missing Apps only; `create-update`
 * also updates generated Apps that differ; `sync` (default) also deletes the AppSet's Apps (`existing`, those with
 * its label) no longer generated. An App of the same name not made by this AppSet is never touched: it is an error.
 */
export function planAppSet(
  appSet: AppSetResource,
  generated: readonly AppResource[],
  existing: readonly AppResource[],
): AppSetPlan & { conflicts: string[] } {
  const policy = appSet.spec.syncPolicy?.applicationsSync ?? 'sync';
  const byName = new Map(existing.map((a) => [a.metadata.name, a]));
  const plan: AppSetPlan & { conflicts: string[] } = { create: [], update: [], delete: [], conflicts: [] };
  for (const app of generated) {
    const found = byName.get(app.metadata.name);
    if (!found) plan.create.push(app);
    else if (found.metadata.labels?.[APPSET_LABEL] !== appSet.metadata.name) {
      plan.conflicts.push(`App "${app.metadata.name}" exists and was not generated by this AppSet`);
    } else if (policy !== 'create-only' && !upToDate(found, app)) plan.update.push(app);
  }
  if (policy === 'sync') {
    const wanted = new Set(generated.map((a) => a.metadata.name));
    plan.delete = existing
      .filter((a) => a.metadata.labels?.[APPSET_LABEL] === appSet.metadata.name && !wanted.has(a.metadata.name))
      .map((a) => a.metadata.name);
  }
  return plan;
}
