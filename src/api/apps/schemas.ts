/** JSON schemas of the /apps routes, for validation and the OpenAPI document. */
import { DNS1123_LABEL_MAX, DNS1123_LABEL_PATTERN } from '../../core/names.ts';

/** An object passed through as stored (sources, specs, resource statuses). */
export const OpenObject = { type: 'object', additionalProperties: true } as const;

const DnsLabel = {
  type: 'string',
  minLength: 1,
  maxLength: DNS1123_LABEL_MAX,
  pattern: DNS1123_LABEL_PATTERN,
} as const;

/**
 * Path parameters of per-app routes: destination namespace and app name, both DNS-1123 labels as at create
 * (src/core/create-request.ts). Checked here so that a name the apiserver would refuse answers 400 instead of
 * reaching the cluster and coming back as a 502 (found by the API fuzzer, test/integration/api-fuzz.test.ts).
 */
export const AppParams = {
  type: 'object',
  required: ['namespace', 'name'],
  properties: { namespace: DnsLabel, name: DnsLabel },
} as const;

/** The app object of contract §2.1. */
export const AppObject = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    namespace: { type: 'string' },
    cluster: { type: 'string' },
    source: OpenObject,
    sync_policy: OpenObject,
    frozen: { type: 'boolean' },
    sync_status: { type: 'string', enum: ['Synced', 'OutOfSync', 'Syncing', 'Unknown'] },
    health: { type: 'string', enum: ['Healthy', 'Degraded', 'Progressing', 'Missing', 'Unknown'] },
    health_reason: { type: 'string' },
    revision: { type: 'string' },
    url: { type: 'string' },
    resources: { type: 'array', items: OpenObject },
    conditions: { type: 'array', items: OpenObject },
    updated_at: { type: 'string' },
  },
} as const;

/** The status view of contract §2.2. */
export const StatusView = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    sync_status: { type: 'string' },
    health: { type: 'string' },
    health_reason: { type: 'string' },
    revision: { type: 'string' },
    observed: { type: 'string' },
    last_sync_at: { type: ['string', 'null'] },
    frozen: { type: 'boolean' },
    operationState: { anyOf: [OpenObject, { type: 'null' }] },
    pending_operation: { type: ['string', 'null'] },
  },
} as const;

/** The create payload (contract §4.2); the deep rules are checked by parseCreateRequest with one message style. */
export const CreateBody = {
  type: 'object',
  description:
    'name and namespace are DNS-1123 labels; source.type Git (with git.repoURL) or Image (with image.repository and image.tag); HelmChart and Catalog are rejected',
  properties: {
    name: { description: 'App name, DNS-1123 label' },
    namespace: { description: 'destination namespace, DNS-1123 label' },
    cluster: { description: 'registered cluster name; empty = management cluster' },
    source: { description: 'source.type plus the matching block (git or image)' },
    sync_policy: { description: 'automated, prune, selfHeal, requiresApproval' },
    notifications: { description: 'notification channels: chat, slack, msTeams, webhook' },
    webhook: { description: 'push-event settings' },
    health: {
      description:
        'custom health checks in CEL: {checks: [{apiVersion, kind, current, inProgress?, failed?}]}; a bad expression is 400 naming the compile error',
    },
  },
} as const;

/** A body for routes that take none: absent, or an empty object. */
export const EmptyBody = { type: 'object', additionalProperties: false, properties: {} } as const;

/** The answer of the operation routes. */
export const OperationResult = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    name: { type: 'string' },
    tag: { type: 'string' },
    revision: { type: 'string' },
    replicas: { type: 'integer' },
    from: { type: 'string' },
    to: { type: 'string' },
    digest: { type: 'string' },
    operation_id: { type: 'string' },
  },
} as const;

/** The body of every error answer (src/api/error-handler.ts). */
export const ErrorBody = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: { error: { type: 'string' } },
} as const;

const ERROR_MEANING: Record<number, string> = {
  400: 'invalid input (body, path or query), or a source type that cannot be deployed',
  401: 'no valid session or API key',
  403: 'missing permission, or a destination outside the cluster allowlist',
  404: 'no such app (including another destination namespace or org)',
  409: 'conflict (name taken, an operation already pending, nothing held to approve, …)',
  413: 'request body over 1 MiB',
  415: 'request body that is not JSON',
  500: 'internal error',
  502: 'an upstream (registry) answered wrongly',
  503: 'no management cluster configured (SVC_MGMT_KUBECONFIG unset)',
};

/**
 * The error answers an /apps route can give, for its response schema (and so the OpenAPI document): every route
 * can answer 400, 401, 403, 500 and 503; `body` adds 413 and 415 (POST), `app` adds 404 (a route naming an App),
 * `also` any other status (409, 502).
 */
export function appErrors(options: { body?: boolean; app?: boolean; also?: number[] } = {}) {
  const statuses = [400, 401, 403, 500, 503];
  if (options.body) statuses.push(413, 415);
  if (options.app) statuses.push(404);
  statuses.push(...(options.also ?? []));
  return Object.fromEntries(
    statuses.sort().map((s) => [s, { description: ERROR_MEANING[s] ?? 'error', ...ErrorBody }]),
  ) as Record<number, typeof ErrorBody & { description: string }>;
}
