/**
 * The AppSet half of `POST /preview` (issue 30 item 1, "every App an AppSet would generate there"): each AppSet of
 * the org whose Git generators read the previewed repository is generated at the ref, by the operator's own code
 * (src/engine/appset-inputs.ts reads the trees at the ref, src/core/appset-generate.ts generates and plans), and its
 * plan becomes the Apps to preview: an App the ref would create (`added`), one whose generated spec the ref changes
 * (`existing`, diffed with the spec it would get), one the ref would delete (`removed`, with the `sync` policy). The
 * rest of the AppSet's Apps are left to the plain path (an App built from the repository is diffed at the ref as any
 * App is). Nothing is created, updated or deleted: the plan is only read.
 */
import { APPSET_LABEL, DELETE_POLICY_ANNOTATION } from '../../core/app-names.ts';
import type { AppResource } from '../../core/app-schema.ts';
import { generateApps, planAppSet } from '../../core/appset-generate.ts';
import { appSetProblems } from '../../core/appset-rules.ts';
import type { AppSetResource } from '../../core/appset-schema.ts';
import { describeError, UnprocessableError } from '../../core/errors.ts';
import {
  GeneratorReadError,
  gatherInputs,
  gitRepositoriesOf,
  type InputSources,
  type ReadAt,
  repositoryKey,
} from '../../engine/appset-inputs.ts';
import { GitRefError } from '../../git/index.ts';

/** One App of the preview: what to diff, and how. */
export interface PreviewCandidate {
  app: AppResource;
  appset: string | null;
  /** added: the ref would create the App; removed: would delete it; existing: it is there before and after. */
  lifecycle: 'existing' | 'added' | 'removed';
  /** The ref to render the App at; undefined when its source is another repository (rendered at its own head). */
  ref: string | undefined;
  /** A removed App whose delete policy orphans its objects: they stay. */
  keepObjects?: boolean;
}

/** What one AppSet generates at the ref. */
export interface AppSetPreview {
  name: string;
  /** failed: its generators could not be read at the ref (error says why); nothing of it is previewed. */
  status: 'generated' | 'failed';
  error?: string;
  /** How many Apps it generates at the ref. */
  apps: number;
  /** What its status would list at the ref: a template that fails, a name made twice, a name taken. */
  errors: string[];
}

/** The AppSet half of a preview. */
export interface AppSetsPreview {
  candidates: PreviewCandidate[];
  appsets: AppSetPreview[];
  /** Failures caused by the ref itself (the repository does not have it). */
  refused: UnprocessableError[];
}

/** Whether `app` is built from the repository `repository` (as repositoryKey answers it). */
export function builtFrom(app: AppResource, repository: string): boolean {
  const repo = app.spec.source.type === 'Git' ? app.spec.source.git?.repoURL : undefined;
  return repo !== undefined && repositoryKey(repo) === repository;
}

/** The generated App as it would be after the AppSet's update: its spec, the template's labels, its status kept. */
function updated(existing: AppResource, generated: AppResource): AppResource {
  const status = existing.status ? { ...existing.status, observedRevision: '' } : undefined;
  return {
    ...existing,
    metadata: { ...existing.metadata, labels: { ...existing.metadata.labels, ...generated.metadata.labels } },
    spec: generated.spec,
    // The observed head was its old source's: the new spec renders at its own head (or at the ref).
    ...(status ? { status } : {}),
  };
}

/** One AppSet generated at the ref, planned against the org's Apps. */
async function previewOne(
  appSet: AppSetResource,
  existing: readonly AppResource[],
  at: ReadAt,
  sources: InputSources,
): Promise<{ preview: AppSetPreview; candidates: PreviewCandidate[] }> {
  const name = appSet.metadata.name;
  const problems = appSetProblems(appSet.spec);
  if (problems.length > 0) {
    return { preview: { name, status: 'failed', error: problems.join('; '), apps: 0, errors: [] }, candidates: [] };
  }
  const inputs = await gatherInputs(appSet, sources, at);
  const generated = generateApps(appSet, inputs);
  const plan = planAppSet(appSet, generated.apps, existing);
  const byName = new Map(existing.map((a) => [a.metadata.name, a]));
  const refOf = (app: AppResource) => (builtFrom(app, at.repository) ? at.revision : undefined);
  const candidates: PreviewCandidate[] = [
    ...plan.create.map((app) => ({ app, appset: name, lifecycle: 'added' as const, ref: refOf(app) })),
    ...plan.update.flatMap((app) => {
      const found = byName.get(app.metadata.name);
      if (!found) return [];
      return [{ app: updated(found, app), appset: name, lifecycle: 'existing' as const, ref: refOf(app) }];
    }),
    ...plan.delete.flatMap((gone) => {
      const found = byName.get(gone);
      if (!found) return [];
      const keepObjects = found.metadata.annotations?.[DELETE_POLICY_ANNOTATION] === 'orphan';
      return [{ app: found, appset: name, lifecycle: 'removed' as const, ref: undefined, keepObjects }];
    }),
  ];
  const errors = [...generated.errors, ...plan.conflicts];
  return { preview: { name, status: 'generated', apps: generated.apps.length, errors }, candidates };
}

/**
 * Every AppSet of `appSets` whose Git generators read `at.repository`, generated at `at.revision` against
 * `existing` (the Apps of the org's namespace). An AppSet whose inputs cannot be read is a `failed` entry; one
 * failing because the repository has no such ref is also `refused`. Reads only.
 */
export async function previewAppSets(
  appSets: readonly AppSetResource[],
  existing: readonly AppResource[],
  at: ReadAt,
  sources: InputSources,
): Promise<AppSetsPreview> {
  const out: AppSetsPreview = { candidates: [], appsets: [], refused: [] };
  for (const appSet of appSets) {
    if (!gitRepositoriesOf(appSet).has(at.repository)) continue;
    try {
      const { preview, candidates } = await previewOne(appSet, existing, at, sources);
      out.appsets.push(preview);
      out.candidates.push(...candidates);
    } catch (err) {
      const cause = err instanceof GeneratorReadError ? err.cause : err;
      // The ref is the request's: the same 422 rule as an App's diff (engine/desired-state.ts).
      if (cause instanceof GitRefError) out.refused.push(new UnprocessableError(`revision: ${cause.message}`));
      out.appsets.push({
        name: appSet.metadata.name,
        status: 'failed',
        error: describeError(err),
        apps: 0,
        errors: [],
      });
    }
  }
  return out;
}

/** The AppSet that generated `app`, or null for a plain App. */
export function appSetOf(app: AppResource): string | null {
  return app.metadata.labels?.[APPSET_LABEL] ?? null;
}
