/**
 * The rules of an AppSet spec a structural schema cannot state (issue 27 item 1), checked when it is written (the
 * API's 422) and by the operator before it generates anything (a spec that breaks one stalls the AppSet): each
 * generator is exactly one kind; matrix and merge combine two stand-alone generators; every placeholder of the
 * template is one every generator provides (./appset-params.ts); each rollingSync maxUnavailable is a count or a
 * percent (./appset-rollout.ts). Pure.
 */
import { clusterKeys, directoryKeys, eitherKeys, fileKeys, type KnownKeys, listKeys } from './appset-params.ts';
import { rolloutProblems } from './appset-rollout.ts';
import type { AppSetSpec, Generator, LeafGenerator } from './appset-schema.ts';
import { templateProblems } from './appset-template.ts';

export const LEAF_KINDS = ['list', 'clusters', 'gitDirectories', 'gitFiles'] as const;
export const GENERATOR_KINDS = [...LEAF_KINDS, 'matrix', 'merge'] as const;
export type GeneratorKind = (typeof GENERATOR_KINDS)[number];

/** The kinds a generator object sets (exactly one is valid). */
export function kindsOf(g: Generator | LeafGenerator): GeneratorKind[] {
  return GENERATOR_KINDS.filter((k) => (g as Record<string, unknown>)[k] !== undefined);
}

/** The keys a stand-alone generator provides. */
function leafKeys(g: LeafGenerator): KnownKeys {
  if (g.list) return listKeys(g.list.elements);
  if (g.clusters) return clusterKeys;
  if (g.gitDirectories) return directoryKeys;
  return fileKeys;
}

/** The keys a generator provides (matrix and merge: either child's). */
export function knownKeysOf(g: Generator): KnownKeys {
  const combined = g.matrix ?? g.merge;
  if (!combined) return leafKeys(g);
  const [a, b] = combined.generators;
  return eitherKeys(leafKeys(a as LeafGenerator), leafKeys(b as LeafGenerator));
}

/** Problems of one generator, each naming its field. */
function generatorProblems(g: Generator, where: string): string[] {
  const kinds = kindsOf(g);
  if (kinds.length !== 1) {
    return [`${where}: set exactly one of ${GENERATOR_KINDS.join(', ')} (found ${kinds.join(', ') || 'none'})`];
  }
  const combined = g.matrix ?? g.merge;
  if (!combined) return [];
  const problems: string[] = [];
  for (const [i, child] of combined.generators.entries()) {
    const childKinds = kindsOf(child);
    if (childKinds.length !== 1 || !(LEAF_KINDS as readonly string[]).includes(childKinds[0] as string)) {
      problems.push(`${where}.${kinds[0]}.generators[${i}]: set exactly one of ${LEAF_KINDS.join(', ')}`);
    }
  }
  return problems;
}

/**
 * Every problem of `spec` (empty when none), each naming its field: a generator that is not exactly one kind, a
 * matrix or merge child that is not one stand-alone generator, a `{{` that is not a placeholder, or a placeholder
 * some generator does not provide (each generator's Apps are made from the whole template).
 */
export function appSetProblems(spec: AppSetSpec): string[] {
  const problems = spec.generators.flatMap((g, i) => generatorProblems(g, `generators[${i}]`));
  if (problems.length > 0) return problems;
  const known = spec.generators.map(knownKeysOf);
  return [
    ...templateProblems(spec.template, (key) => known.every((k) => k(key))),
    ...rolloutProblems(spec.strategy?.rollingSync.steps ?? []),
  ];
}
