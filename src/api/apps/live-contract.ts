/** The route schemas of an App's live reads (contract §4.2; the diff goes beyond it: docs/compatibility.md). */
import { Type } from 'typebox';
import { HEALTH_STATUSES, SYNC_STATUSES } from '../../core/app-schema.ts';
import { errors } from '../contract/errors.ts';
import { component, Nullable, ref, StringEnum } from '../contract/schema.ts';
import { AppParams } from './contract.ts';
import { LOG_TAIL_MAX } from './resource-service.ts';

const tags = ['apps'];
const closed = { additionalProperties: false } as const;
const APP_404 = 'no such app (including another destination namespace or org)';
const UPSTREAM = 'the destination cluster answered with an error, or the source could not be rendered';

export const ObjectDiff = component(
  'ObjectDiff',
  Type.Object(
    {
      apiVersion: Type.String(),
      kind: Type.String(),
      name: Type.String(),
      namespace: Type.String({ description: 'empty for cluster-scoped objects' }),
      status: StringEnum(['same', 'changed', 'missing', 'extra'] as const),
      live: Type.String({
        description: 'live object as YAML, noise stripped, Secret values masked; empty when absent',
      }),
      desired: Type.String({ description: 'the server-side apply dry run of the rendered object, as YAML' }),
      patch: Type.String({ description: 'unified diff live → desired' }),
      message: Type.Optional(Type.String()),
      drift: Type.Optional(
        Type.Object(
          {
            fields: Type.Array(Type.String(), {
              description: 'fields svc applied that another writer took or removed, e.g. spec.replicas',
            }),
            taken_by: Type.Array(Type.String(), { description: 'the field managers that own them now' }),
          },
          { ...closed, description: 'present when the live object drifted from what svc applied' },
        ),
      ),
    },
    closed,
  ),
);

export const AppDiff = component(
  'AppDiff',
  Type.Object(
    {
      name: Type.String(),
      namespace: Type.String(),
      sync_status: StringEnum(['Synced', 'OutOfSync'] as const),
      drifted: Type.Boolean({
        description:
          'a live object lost a field svc applied to another writer (edited out of band; sync_status is then OutOfSync); selfHeal reverts it, else a Sync does',
      }),
      recorded_sync_status: Type.String(),
      revision: Type.Object(
        {
          applied: Type.String({ description: 'status.revision: the last applied revision' }),
          compared: Type.String({ description: 'the revision rendered: the upstream head the operator last observed' }),
          head: Type.String({ description: 'the upstream head (fetched at most 5 s before)' }),
          ref: Type.Optional(
            Type.String({ description: 'the ref asked for with ?revision= (compared is the commit it names now)' }),
          ),
        },
        closed,
      ),
      summary: Type.Object(
        { same: Type.Integer(), changed: Type.Integer(), missing: Type.Integer(), extra: Type.Integer() },
        closed,
      ),
      objects: Type.Array(ref(ObjectDiff)),
      unified: Type.String(),
    },
    closed,
  ),
);

export const TreeNode = component(
  'TreeNode',
  Type.Object(
    {
      id: Type.String(),
      parent: Nullable(Type.String()),
      apiVersion: Type.String(),
      kind: Type.String(),
      name: Type.String(),
      namespace: Type.String(),
      health: Type.String({ description: HEALTH_STATUSES.join(', ') }),
      message: Type.String(),
      sync_status: Type.String({ description: `${SYNC_STATUSES.join(', ')}; empty for objects Kubernetes made` }),
      created_at: Type.String(),
      info: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Array(Type.String())]), {
        description: 'kind-specific facts: images, containers, replicas, phase, …',
      }),
      annotations: Type.Record(Type.String(), Type.String()),
    },
    closed,
  ),
);

export const AppTree = component(
  'AppTree',
  Type.Object({ name: Type.String(), health: Type.String(), nodes: Type.Array(ref(TreeNode)) }, closed),
);

export const diffRoute = {
  tags,
  summary:
    'What a sync would change (deployment:read): each rendered object (at the head the operator last observed) dry-run applied on the destination vs live; same, changed, missing, extra; Secret values masked; sync_status by the operator’s own rule',
  params: AppParams,
  querystring: Type.Object(
    {
      revision: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 255,
          pattern: '^[A-Za-z0-9_./-]+$',
          description:
            'preview a ref instead: a branch, tag, commit id or refs/pull/N/head of the App’s Git repository, rendered and dry-run applied; nothing is written (422 when the repository has no such ref)',
        }),
      ),
    },
    closed,
  ),
  response: {
    200: ref(AppDiff),
    ...errors({
      404: APP_404,
      422: 'the revision names no ref or commit of the App’s repository, or the source is not Git; or the source spec is invalid',
      502: UPSTREAM,
    }),
  },
};
export const treeRoute = {
  tags,
  summary:
    'Live resource tree (deployment:read): the App’s objects, then their ReplicaSets, Jobs and Pods, each with health',
  params: AppParams,
  response: { 200: ref(AppTree), ...errors({ 404: APP_404, 502: UPSTREAM }) },
};

/** A duration of at least one second: `10m`, `1h30m`, `90s`, `1500ms`, or a bare number of seconds. */
const SINCE =
  '^[1-9][0-9]{0,5}(\\.[0-9]{1,3})?(s|m|h)([0-9]{1,6}(\\.[0-9]{1,3})?(ms|s|m|h))*$|^[1-9][0-9]{0,5}$|^[1-9][0-9]{3,6}ms$';

export const logsRoute = {
  tags,
  summary:
    'Logs of one of the App’s Pods as text/plain (timestamped lines; deployment:read), streamed while follow=true; headers x-svc-pod, x-svc-container and x-svc-pod-count say whose',
  params: AppParams,
  querystring: Type.Object(
    {
      pod: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 253,
          description: 'default: a Healthy Pod of the App, the newest (x-svc-pod names the one read)',
        }),
      ),
      container: Type.Optional(
        Type.String({ minLength: 1, maxLength: 63, description: 'default: the first container' }),
      ),
      tail: Type.Optional(
        Type.String({
          pattern: '^([1-9][0-9]{0,2}|[1-4][0-9]{3}|5000)$',
          description: `lines from the end, 1..${LOG_TAIL_MAX} (default 200)`,
        }),
      ),
      follow: Type.Optional(StringEnum(['true', 'false'] as const)),
      since: Type.Optional(
        Type.String({
          maxLength: 32,
          pattern: SINCE,
          description: 'only lines newer than this duration (at least 1s: 10m, 1h30m, 90s)',
        }),
      ),
    },
    closed,
  ),
  response: {
    200: Type.Unsafe<unknown>({
      description: 'timestamped log lines',
      content: { 'text/plain': { schema: { type: 'string' } } },
    }),
    ...errors({ 404: `${APP_404}, or the Pod or container is not the App's`, 502: UPSTREAM }),
  },
};

export const APP_LIVE_COMPONENTS = [ObjectDiff, AppDiff, TreeNode, AppTree];
