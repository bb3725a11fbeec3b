/**
 * The route schemas of /apps (contract §4.2): read, create, clone, preview and delete; status, events and history;
 * the operations; diff, resource tree and logs; adoption; the change stream.
 */
import { Type } from 'typebox';
import { HEALTH_STATUSES, SYNC_STATUSES } from '../../core/app-schema.ts';
import { errors } from '../contract/errors.ts';
import {
  ClusterName,
  component,
  DnsLabel,
  EmptyBody,
  LABEL,
  Nullable,
  OpenObject,
  ref,
  StringEnum,
} from '../contract/schema.ts';
import { App, AppParams, AppStatus, OperationResult, ReleaseResult } from './contract.ts';
import { AppCreateRequest } from './create-contract.ts';
import { LIST_LIMIT_MAX, LIST_SORTS } from './list-query.ts';
import { LOG_TAIL_MAX } from './resource-service.ts';

const tags = ['apps'];
const closed = { additionalProperties: false } as const;
const APP_404 = 'no such app (including another destination namespace or org)';

/** A comma-separated list of `values`. */
const enumList = (values: readonly string[], description: string) =>
  Type.String({ maxLength: 128, pattern: `^(${values.join('|')})(,(${values.join('|')}))*$`, description });

const ListQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({ maxLength: 253, description: 'case-insensitive text in name, namespace, cluster or source' }),
    ),
    sync: Type.Optional(enumList(SYNC_STATUSES, 'comma-separated sync statuses, e.g. OutOfSync,Unknown')),
    health: Type.Optional(enumList(HEALTH_STATUSES, 'comma-separated health values, e.g. Degraded,Missing')),
    cluster: Type.Optional(ClusterName('destination cluster; empty = the management cluster')),
    namespace: Type.Optional(
      Type.String({ maxLength: 63, pattern: `^(${LABEL})?$`, description: 'destination namespace' }),
    ),
    sort: Type.Optional(StringEnum(LIST_SORTS, { description: 'default name; health and sync put the worst first' })),
    limit: Type.Optional(
      Type.String({
        pattern: '^([1-9][0-9]{0,2}|1000)$',
        description: `page size 1..${LIST_LIMIT_MAX}, default 100`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        maxLength: 1024,
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'next_cursor of the previous page with the same sort (422 for one this server did not issue)',
      }),
    ),
  },
  closed,
);

export const AppList = component(
  'AppList',
  Type.Object(
    {
      apps: Type.Array(ref(App)),
      total: Type.Optional(Type.Integer({ description: 'Apps matching the filters, all pages (paged answers only)' })),
      next_cursor: Type.Optional(
        Nullable(Type.String(), { description: 'cursor of the next page; null on the last (paged answers only)' }),
      ),
      resource_version: Type.Optional(
        Type.String({
          description:
            'the App cache version this page is as of: GET /apps/stream?since=<it> misses no change after it (paged answers only)',
        }),
      ),
    },
    closed,
  ),
);

export const PreviewResult = component(
  'PreviewResult',
  Type.Object(
    {
      valid: Type.Boolean(),
      error: Type.Optional(Type.String({ description: 'why the image could not be resolved (valid false)' })),
      error_class: Type.Optional(Type.String()),
      resolved: Type.Object(
        { image: Type.String(), tag: Type.String(), digest: Type.String(), ref: Type.String() },
        closed,
      ),
      spec: OpenObject('the App spec create would store'),
      current: Type.Optional(OpenObject('the spec of the App named by ?app=, for a client-side diff')),
    },
    closed,
  ),
);

export const listAppsRoute = {
  tags,
  summary:
    'Apps of the caller org the caller may read (deployment:read). Without a query: every one, sorted by name, as `{apps}`. With any query parameter: one page (filters, sort, cursor) with total, next_cursor and resource_version',
  querystring: ListQuery,
  response: { 200: ref(AppList), ...errors(422) },
};
export const createAppRoute = {
  tags,
  summary: 'Create an App (deployment:manage on its destination; audited app.create); 409 when the name is taken',
  body: ref(AppCreateRequest),
  response: { 201: ref(App), ...errors({ 409: 'an App of that name exists' }, 422) },
};
export const previewAppRoute = {
  tags,
  summary:
    'Validate a create payload (as create does) and resolve its source (an image tag to its digest; valid:false with the registry error when it cannot be resolved); writes nothing',
  querystring: Type.Object(
    { app: Type.Optional(DnsLabel('an App whose spec to add for a diff (422 when absent)')) },
    closed,
  ),
  body: ref(AppCreateRequest),
  response: { 200: ref(PreviewResult), ...errors(422) },
};
export const getAppRoute = {
  tags,
  summary: 'One App (deployment:read)',
  params: AppParams,
  response: { 200: ref(App), ...errors({ 404: APP_404 }) },
};
export const deleteAppRoute = {
  tags,
  summary: 'Delete an App (deployment:manage; the operator stops managing its resources); audited app.delete',
  params: AppParams,
  response: {
    200: Type.Object({ deleted: Type.Boolean(), name: Type.String(), namespace: Type.String() }, closed),
    ...errors({ 404: APP_404 }),
  },
};
export const cloneAppRoute = {
  tags,
  summary:
    'Copy source, sync policy and destination onto a new App (deployment:read here, deployment:manage there; audited app.clone); it starts unsynced, and a clone of a Pinned image App first deploys the digest the original runs',
  params: AppParams,
  body: Type.Object({ name: DnsLabel('the new App'), namespace: Type.Optional(DnsLabel('its namespace')) }, closed),
  response: { 201: ref(App), ...errors({ 404: APP_404, 409: 'an App of that name exists' }, 422) },
};

const WAIT = '^([0-9]{1,6}(\\.[0-9]{1,3})?(ms|s|m|h))+$|^[0-9]{1,6}(\\.[0-9]{1,3})?$|^$';

export const appStatusRoute = {
  tags,
  summary:
    'Status view (deployment:read); with wait=<duration> (max 120s) blocks until Synced+Healthy, Degraded, Unknown, Stalled, Failed or Held',
  params: AppParams,
  querystring: Type.Object(
    {
      wait: Type.Optional(
        Type.String({ maxLength: 32, pattern: WAIT, description: 'e.g. 30s, 2m, 1m30s; a bare number is seconds' }),
      ),
    },
    closed,
  ),
  response: { 200: ref(AppStatus), ...errors({ 404: APP_404 }) },
};

export const AppEvent = component(
  'AppEvent',
  Type.Object(
    {
      at: Type.String(),
      type: Type.String(),
      object: Type.String({ description: 'Kind/name' }),
      reason: Type.String(),
      message: Type.String(),
      source: StringEnum(['app', 'workload'] as const),
    },
    closed,
  ),
);

export const appEventsRoute = {
  tags,
  summary: 'Kubernetes events of the App and its workloads, newest first, at most 50 (deployment:read)',
  params: AppParams,
  response: { 200: Type.Object({ events: Type.Array(ref(AppEvent)) }, closed), ...errors({ 404: APP_404 }) },
};

export const AppHistory = component(
  'AppHistory',
  Type.Object(
    {
      name: Type.String(),
      revision: Type.String(),
      previous_revisions: Type.Array(Type.String()),
      last_sync_at: Nullable(Type.String()),
      revision_tags: Type.Array(
        Type.Object({ revision: Type.String(), tag: Type.String(), image: Type.String() }, closed),
      ),
      revisions: Type.Optional(
        Type.Array(
          Type.Object(
            {
              revision: Type.String(),
              subject: Type.Optional(Type.String({ description: "the commit's subject line (Git apps)" })),
              author: Type.Optional(Type.String({ description: "the commit's author name (Git apps)" })),
              date: Type.Optional(Type.String({ description: "the commit's author date, ISO 8601 (Git apps)" })),
              tag: Type.Optional(
                Type.String({ description: 'the tag the digest came from, where recorded (image apps)' }),
              ),
            },
            closed,
          ),
          {
            description:
              'revision, then previous_revisions, each with what is known of it; a field is absent when not known (the repository could not be read)',
          },
        ),
      ),
    },
    closed,
  ),
);

export const appHistoryRoute = {
  tags,
  summary:
    'Applied revisions, newest first (deployment:read); revision_tags (image apps): the tag and image each digest came from, which rollback writes back; revisions: each with its commit subject, author and date (Git apps) or tag (image apps)',
  params: AppParams,
  response: { 200: ref(AppHistory), ...errors({ 404: APP_404 }) },
};

/** The answers of an operation route. */
const operationAnswers = (conflict: string, ...also: Array<502>) => ({
  200: ref(OperationResult),
  ...errors({ 404: APP_404, 409: conflict }, ...also),
});
const PENDING = 'another operation is requested, running or held';

/** A tag or digest (src/core/image-ref.ts). */
const TagOrDigest = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$|^[a-z0-9]+([.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$',
  description: 'a tag (e.g. 1.4.2) or a digest (sha256:…)',
});

/** The one-off override of delivery windows a sync, deploy or rollback may carry. */
export const OverrideQuery = Type.Object(
  {
    override_windows: Type.Optional(
      StringEnum(['true', 'false'] as const, {
        description:
          'true runs the request even while a delivery window blocks syncs (needs deployment:manage; audited as window_override)',
      }),
    ),
  },
  closed,
);
const WINDOW_409 = 'or a delivery window blocks syncs (the message names it)';

export const syncAppRoute = {
  tags,
  summary:
    'Request a sync (deployment:sync; audited app.sync); 409 while another operation is requested, running or held, or while a delivery window blocks (override_windows=true overrides once, with deployment:manage)',
  params: AppParams,
  querystring: OverrideQuery,
  body: ref(EmptyBody),
  response: operationAnswers(`${PENDING}, ${WINDOW_409}`),
};
export const restartAppRoute = {
  tags,
  summary: 'Restart every managed workload (deployment:sync; template annotation bump; audited app.restart)',
  params: AppParams,
  body: ref(EmptyBody),
  response: operationAnswers(PENDING),
};
export const deployAppRoute = {
  tags,
  summary:
    'Deploy (deployment:sync; audited app.deploy): re-resolve the source live (image apps may pass a new tag; 409 for a tag on another source type); Git apps sync to head',
  params: AppParams,
  querystring: OverrideQuery,
  body: Type.Object({ tag: Type.Optional(TagOrDigest) }, closed),
  response: operationAnswers(`${PENDING}, a tag for an app that is not an image app, ${WINDOW_409}`),
};
export const rollbackAppRoute = {
  tags,
  summary:
    'Roll back to a revision from /history (deployment:sync; audited app.rollback); with hold, the App stays at it (automated sync and pushes do not move it) until POST .../release; 422 for another revision, 409 while an operation is pending or (without hold) while the App is held',
  params: AppParams,
  querystring: OverrideQuery,
  body: Type.Object(
    {
      revision: Type.String({ minLength: 1, maxLength: 255, description: "one of the app's history (422 otherwise)" }),
      hold: Type.Optional(Type.Boolean({ description: 'pin the App at this revision until released' })),
      reason: Type.Optional(Type.String({ maxLength: 500, description: 'why (shown in held_at)' })),
    },
    closed,
  ),
  response: {
    ...operationAnswers(`${PENDING}, the app is held and hold is not set, ${WINDOW_409}`),
    ...errors({ 422: "the revision is not in the app's history" }),
  },
};
export const releaseAppRoute = {
  tags,
  summary:
    'Release a held rollback (deployment:sync; audited app.release): automated sync and requested syncs move the App to the head again; 409 when nothing is held',
  params: AppParams,
  body: ref(EmptyBody),
  response: { 200: ref(ReleaseResult), ...errors({ 404: APP_404, 409: 'the app is not held' }) },
};
export const approveAppRoute = {
  tags,
  summary:
    'Release a sync held by requiresApproval, carrying the staged revision (deployment:sync; audited app.approve); 409 unless one is held',
  params: AppParams,
  body: ref(EmptyBody),
  response: operationAnswers('no sync is held for approval, or another operation is pending'),
};
export const terminateAppRoute = {
  tags,
  summary:
    'End the requested or running operation (deployment:sync; audited app.terminate): the operator ends it Failed, reason Terminated, stopping its running hooks; 409 when none is requested or running',
  params: AppParams,
  body: ref(EmptyBody),
  response: operationAnswers('no operation is requested or running'),
};
export const promoteAppRoute = {
  tags,
  summary:
    'Copy this image app’s applied digest onto app `to` as a Deploy with a byte-equal pin (deployment:read here, deployment:sync there; audited app.promote); 409 on scope mismatch, 502 when the digest is absent on the target registry',
  params: AppParams,
  querystring: Type.Object({ to: DnsLabel('the target App') }, closed),
  body: ref(EmptyBody),
  response: operationAnswers(`not two image apps with an applied digest (scope mismatch), or ${PENDING}`, 502),
};
export const scaleAppRoute = {
  tags,
  summary:
    'Set the replicas of an image app and sync (deployment:manage; audited app.scale); 409 for other apps or while autoscaling is enabled',
  params: AppParams,
  body: Type.Object({ replicas: Type.Integer({ minimum: 0, maximum: 1000 }) }, closed),
  response: operationAnswers(`not an image app, autoscaling is enabled, or ${PENDING}`),
};
export const freezeAppRoute = (frozen: boolean) => ({
  tags,
  summary: frozen
    ? 'Freeze: hold every sync, manual and automated (deployment:manage; audited app.freeze)'
    : 'Unfreeze: allow syncs again (deployment:manage; audited app.unfreeze)',
  params: AppParams,
  body: ref(EmptyBody),
  response: {
    200: Type.Object({ frozen: Type.Boolean(), name: Type.String() }, closed),
    ...errors({ 404: APP_404 }),
  },
});

export const APP_ROUTE_COMPONENTS = [AppList, PreviewResult, AppEvent, AppHistory];

export { LOG_TAIL_MAX };
