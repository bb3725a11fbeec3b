/** The route schema of `POST /preview` (issue 30 item 1): a ref of a repository previewed for every App built from it. */
import { Type } from 'typebox';
import { AppDiff } from '../apps/live-contract.ts';
import { errors } from '../contract/errors.ts';
import { component, Nullable, ref, StringEnum } from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;

export const PreviewRequest = component(
  'PreviewRequest',
  Type.Object(
    {
      repoURL: Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'the Git repository: every App of the org whose source is it (case of host and .git ignored)',
      }),
      revision: Type.String({
        minLength: 1,
        maxLength: 255,
        pattern: '^[A-Za-z0-9_./-]+$',
        description: 'a branch, tag, commit id or refs/pull/N/head of that repository',
      }),
    },
    closed,
  ),
);

export const PreviewedApp = component(
  'PreviewedApp',
  Type.Object(
    {
      name: Type.String(),
      namespace: Type.String({ description: 'the destination namespace' }),
      appset: Nullable(Type.String(), {
        description: 'the AppSet that generated the App (or would generate it at the ref), null for a plain App',
      }),
      lifecycle: StringEnum(['existing', 'added', 'removed'] as const, {
        description:
          'added: an AppSet reading the repository would create this App at the ref (its objects are added); removed: would delete it (its objects are removed, unless its delete policy orphans them); existing: it is there before and after',
      }),
      status: StringEnum(['changed', 'unchanged', 'failed'] as const, {
        description: 'changed: a sync of the ref would change something; failed: see error',
      }),
      error: Type.Optional(Type.String()),
      diff: Type.Optional(ref(AppDiff)),
    },
    closed,
  ),
);

export const PreviewedAppSet = component(
  'PreviewedAppSet',
  Type.Object(
    {
      name: Type.String(),
      status: StringEnum(['generated', 'failed'] as const, {
        description:
          'failed: its generators could not be read at the ref (see error); its Apps are previewed as they are',
      }),
      error: Type.Optional(Type.String()),
      apps: Type.Integer({ description: 'how many Apps it generates at the ref' }),
      errors: Type.Array(Type.String(), {
        description: 'what its status would list at the ref: a template that fails, a name made twice or taken',
      }),
    },
    closed,
  ),
);

export const PreviewReport = component(
  'PreviewReport',
  Type.Object(
    {
      repoURL: Type.String(),
      revision: Type.String(),
      apps: Type.Array(ref(PreviewedApp)),
      appsets: Type.Array(ref(PreviewedAppSet), {
        description: "the org's AppSets whose Git generators read the repository, each generated at the ref",
      }),
      summary: Type.Object(
        {
          apps: Type.Integer(),
          changed: Type.Integer(),
          unchanged: Type.Integer(),
          failed: Type.Integer(),
          added: Type.Integer({ description: 'Apps an AppSet would create at the ref' }),
          removed: Type.Integer({ description: 'Apps an AppSet would delete at the ref' }),
        },
        closed,
      ),
      markdown: Type.String({ description: 'the answer summed up in Markdown, fit for a pull-request comment' }),
    },
    closed,
  ),
);

export const previewRoute = {
  tags: ['preview'],
  summary:
    'Preview a ref of a repository before merge (deployment:read): every App of the org the caller may read whose Git source is that repository (AppSet-generated ones included), each rendered at the ref and dry-run applied vs live, as GET …/diff?revision= answers; and every App an AppSet whose Git generators read that repository would generate at the ref: new ones (all added), changed ones, and the ones it would delete (all removed). Plus a Markdown summary. Writes nothing (no App is created, no object applied)',
  body: ref(PreviewRequest),
  response: {
    200: ref(PreviewReport),
    ...errors({ 422: 'the repository has no such ref or commit (every App of it failed on it)' }),
  },
};

export const PREVIEW_COMPONENTS = [PreviewRequest, PreviewedApp, PreviewedAppSet, PreviewReport];
