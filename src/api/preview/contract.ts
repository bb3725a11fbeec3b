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
      appset: Nullable(Type.String(), { description: 'the AppSet that generated the App, null for a plain App' }),
      status: StringEnum(['changed', 'unchanged', 'failed'] as const, {
        description: 'changed: a sync of the ref would change something; failed: see error',
      }),
      error: Type.Optional(Type.String()),
      diff: Type.Optional(ref(AppDiff)),
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
      summary: Type.Object(
        { apps: Type.Integer(), changed: Type.Integer(), unchanged: Type.Integer(), failed: Type.Integer() },
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
    'Preview a ref of a repository before merge (deployment:read): every App of the org the caller may read whose Git source is that repository (AppSet-generated ones included), each rendered at the ref and dry-run applied vs live, as GET …/diff?revision= answers; plus a Markdown summary. Writes nothing',
  body: ref(PreviewRequest),
  response: {
    200: ref(PreviewReport),
    ...errors({ 422: 'the repository has no such ref or commit (every App of it failed on it)' }),
  },
};

export const PREVIEW_COMPONENTS = [PreviewRequest, PreviewedApp, PreviewReport];
