/** JSON schemas of the /clusters routes (validation and the OpenAPI document). */
import { DNS1123_LABEL_MAX } from '../../core/names.ts';
import { ErrorBody } from '../apps/schemas.ts';
import { DEFAULT_SHELL_TTL_SECONDS, MAX_SHELL_TTL_SECONDS, MIN_SHELL_TTL_SECONDS } from './shell-service.ts';

const DNS_LABEL = { type: 'string', minLength: 1, maxLength: DNS1123_LABEL_MAX } as const;
/** Server URLs must be https:// (the service says why when not; the schema keeps the type and a sane length). */
const SERVER_URL = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  description: 'https:// URL of the API server',
} as const;
const KUBECONFIG = {
  type: 'string',
  minLength: 1,
  description: 'kubeconfig YAML with inline credentials (no exec, auth-provider, file references or proxy-url)',
} as const;
const ALLOWLIST = {
  type: 'array',
  items: DNS_LABEL,
  maxItems: 1000,
  description: 'namespace allowlist; empty = cluster-wide',
} as const;

export const ClusterParams = {
  type: 'object',
  required: ['name'],
  properties: { name: DNS_LABEL },
} as const;

export const ShallowQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { shallow: { type: 'string', enum: ['0', '1', 'true', 'false'], description: '1 skips the live probe' } },
} as const;

export const Cluster = {
  type: 'object',
  required: ['id', 'name', 'server_url', 'namespace', 'status', 'created_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    server_url: { type: 'string' },
    namespace: { type: 'string', description: 'the namespace allowlist joined by commas; empty = cluster-wide' },
    credentials: { type: 'string', enum: ['kubeconfig', 'in-cluster'] },
    status: { type: 'string', enum: ['connected', 'disconnected', 'unknown'] },
    status_message: { type: 'string', description: 'why the last probe failed' },
    version: { type: 'string' },
    provider: { type: 'string' },
    region: { type: 'string' },
    node_count: { type: 'integer' },
    cpu_usage: { type: 'integer' },
    memory_usage: { type: 'integer' },
    deployment_count: { type: 'integer' },
    healthy_deployments: { type: 'integer' },
    last_seen: { type: 'string', nullable: true },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;

export const ClusterAnswer = { type: 'object', required: ['cluster'], properties: { cluster: Cluster } } as const;

export const RegisterBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'server_url'],
  properties: { name: DNS_LABEL, server_url: SERVER_URL, kubeconfig: KUBECONFIG, namespaces: ALLOWLIST },
} as const;

export const UpdateBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    server_url: SERVER_URL,
    kubeconfig: { ...KUBECONFIG, nullable: true, description: `${KUBECONFIG.description}; null = in-cluster` },
    namespaces: ALLOWLIST,
  },
} as const;

export const TestBody = {
  type: 'object',
  additionalProperties: false,
  properties: { server_url: SERVER_URL, kubeconfig: KUBECONFIG },
} as const;

export const TestAnswer = {
  type: 'object',
  required: ['ok'],
  properties: {
    ok: { type: 'boolean' },
    version: { type: 'string' },
    namespaces: { type: 'array', items: { type: 'string' } },
    error: { type: 'string' },
  },
} as const;

export const ShellBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ttl_seconds: {
      type: 'integer',
      minimum: MIN_SHELL_TTL_SECONDS,
      maximum: MAX_SHELL_TTL_SECONDS,
      default: DEFAULT_SHELL_TTL_SECONDS,
      description: 'how long the shell lives',
    },
  },
} as const;

export const ShellAnswer = {
  type: 'object',
  required: ['shell'],
  properties: {
    shell: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        cluster: { type: 'string' },
        namespace: { type: 'string' },
        pod: { type: 'string' },
        container: { type: 'string' },
        power: { type: 'string', enum: ['view', 'admin'] },
        service_account: { type: 'string' },
        created_at: { type: 'string' },
        expires_at: { type: 'string' },
        attach: {
          type: 'object',
          properties: {
            server: { type: 'string' },
            token: {
              type: 'string',
              description: 'short-lived token that may only get and exec into this pod; dies with the shell',
            },
            token_expires_at: { type: 'string' },
            certificate_authority_data: { type: 'string' },
            insecure_skip_tls_verify: { type: 'boolean' },
            tls_server_name: { type: 'string' },
            command: { type: 'string' },
          },
        },
      },
    },
  },
} as const;

const MEANING: Record<number, string> = {
  400: 'invalid input (name, server_url, namespaces, or a kubeconfig that is refused)',
  401: 'no valid session or API key',
  403: 'missing permission',
  404: 'no such cluster in this organization',
  409: 'name taken, or Apps still deploy to the cluster (or to namespaces an allowlist would leave out)',
  413: 'request body over 1 MiB',
  415: 'request body that is not JSON',
  500: 'internal error',
  502: 'the cluster answered with an error (e.g. its credentials may not do what was asked)',
  503: 'the cluster cannot be reached',
};

/** The error answers of a /clusters route: 400, 401, 403 and 500 always, plus `also`. */
export function clusterErrors(...also: number[]) {
  return Object.fromEntries(
    [400, 401, 403, 500, ...also].sort().map((s) => [s, { description: MEANING[s] ?? 'error', ...ErrorBody }]),
  );
}
