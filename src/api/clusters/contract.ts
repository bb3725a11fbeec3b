/**
 * The contract of /clusters (contract §4.3): register, list (live probe unless shallow=1), read one, dry-run test,
 * update, remove, live namespaces, and shell pods. Update and removal are the contract's gaps, filled as PATCH and
 * DELETE /clusters/{name} (docs/compatibility.md "Cluster update and removal").
 */
import { Type } from 'typebox';
import { errors } from '../contract/errors.ts';
import { component, DnsLabel, Nullable, ref, StringEnum } from '../contract/schema.ts';
import { DEFAULT_SHELL_TTL_SECONDS, MAX_SHELL_TTL_SECONDS, MIN_SHELL_TTL_SECONDS } from './shell-use-case.ts';

const closed = { additionalProperties: false } as const;

/** An https:// API server URL without credentials, query or fragment (the outbound policy: 422). */
const ServerURL = Type.String({
  minLength: 1,
  maxLength: 2048,
  pattern: '^https://[!-"$-.0->A-~]+(/[!-"$->@-~]*)?$',
  description:
    'https:// URL of the API server, without user, query or fragment; 422 when the outbound address policy refuses it',
});
const KUBECONFIG =
  'kubeconfig YAML with inline credentials; 422 when it does not parse or uses exec, auth-provider, file references or proxy-url';
const Kubeconfig = Type.String({ minLength: 1, description: KUBECONFIG });
const Allowlist = Type.Array(DnsLabel(), { maxItems: 1000, description: 'namespace allowlist; empty = cluster-wide' });
/**
 * Labels in Kubernetes label syntax. The values' rule is in the schema; the keys' rule (a DNS-subdomain prefix and
 * `/`, then a name) is checked by the use-cases (422, src/core/names.ts labelKeyProblems): OpenAPI 3.0 cannot state
 * a rule on property names.
 */
const Labels = (
  description = 'labels (Kubernetes label syntax) an AppSet clusters generator selects on (selector.matchLabels); {} = none; 422 when a key is not a Kubernetes label key',
) =>
  Type.Unsafe<Record<string, string>>({
    type: 'object',
    additionalProperties: {
      type: 'string',
      maxLength: 63,
      pattern: '^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$',
    },
    maxProperties: 64,
    description,
  });

export const ClusterParams = Type.Object({ name: DnsLabel('cluster name') });

export const ShallowQuery = Type.Object(
  {
    shallow: Type.Optional(StringEnum(['0', '1', 'true', 'false'] as const, { description: '1 skips the live probe' })),
  },
  closed,
);

export const Cluster = component(
  'Cluster',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      server_url: Type.String(),
      namespace: Type.String({ description: 'the namespace allowlist joined by commas; empty = cluster-wide' }),
      labels: Labels(),
      credentials: StringEnum(['kubeconfig', 'in-cluster'] as const),
      status: StringEnum(['connected', 'disconnected', 'unknown'] as const),
      status_message: Type.String({ description: 'why the last probe failed' }),
      version: Type.String(),
      provider: Type.String(),
      region: Type.String(),
      node_count: Type.Integer(),
      cpu_usage: Type.Integer(),
      memory_usage: Type.Integer(),
      deployment_count: Type.Integer(),
      healthy_deployments: Type.Integer(),
      last_seen: Nullable(Type.String()),
      created_at: Type.String(),
      updated_at: Type.String(),
    },
    closed,
  ),
);

export const ClusterAnswer = component('ClusterAnswer', Type.Object({ cluster: ref(Cluster) }, closed));

export const ClusterRegistration = component(
  'ClusterRegistration',
  Type.Object(
    {
      name: DnsLabel('unique in the org'),
      server_url: ServerURL,
      kubeconfig: Type.Optional(Kubeconfig),
      namespaces: Type.Optional(Allowlist),
      labels: Type.Optional(Labels()),
    },
    closed,
  ),
);

export const ClusterUpdate = component(
  'ClusterUpdate',
  Type.Object(
    {
      server_url: Type.Optional(ServerURL),
      kubeconfig: Type.Optional(Nullable(Kubeconfig, { description: `${KUBECONFIG}; null = in-cluster` })),
      namespaces: Type.Optional(Allowlist),
      labels: Type.Optional(Labels('the new labels, replacing all of them ({} removes every one)')),
    },
    { ...closed, minProperties: 1 },
  ),
);

export const ClusterTestRequest = component(
  'ClusterTestRequest',
  Type.Object(
    {
      server_url: Type.Optional(ServerURL),
      kubeconfig: Type.Optional(
        Type.String({ minLength: 1, description: 'kubeconfig YAML; a problem with it is part of the result' }),
      ),
    },
    { ...closed, description: 'what to connect with; nothing: the server’s own in-cluster credentials' },
  ),
);

export const ClusterTestResult = component(
  'ClusterTestResult',
  Type.Object(
    {
      ok: Type.Boolean(),
      version: Type.Optional(Type.String()),
      namespaces: Type.Optional(Type.Array(Type.String())),
      error: Type.Optional(Type.String()),
    },
    closed,
  ),
);

export const Shell = component(
  'Shell',
  Type.Object(
    {
      id: Type.String(),
      cluster: Type.String(),
      namespace: Type.String(),
      pod: Type.String(),
      container: Type.String(),
      power: StringEnum(['view', 'admin'] as const),
      service_account: Type.String(),
      created_at: Type.String(),
      expires_at: Type.String(),
      attach: Type.Object(
        {
          server: Type.String(),
          token: Type.String({
            description: 'short-lived token that may only get and exec into this pod; dies with the shell',
          }),
          token_expires_at: Type.String(),
          certificate_authority_data: Type.Optional(Type.String()),
          insecure_skip_tls_verify: Type.Optional(Type.Boolean()),
          tls_server_name: Type.Optional(Type.String()),
          command: Type.String(),
        },
        closed,
      ),
    },
    closed,
  ),
);

const tags = ['clusters'];
const NOT_FOUND = { 404: 'no such cluster in this organization' };
const CLUSTER_502 = { 502: 'the cluster answered with an error (e.g. its credentials may not do what was asked)' };
const CLUSTER_503 = { 503: 'the cluster cannot be reached' };

export const listClustersRoute = {
  tags,
  summary: 'Registered clusters (cluster:read), each probed live in parallel unless shallow=1 (stored data only)',
  querystring: ShallowQuery,
  response: { 200: Type.Object({ clusters: Type.Array(ref(Cluster)) }, closed), ...errors() },
};
export const registerClusterRoute = {
  tags,
  summary:
    'Register a cluster (cluster:register; audited cluster.register): status unknown, no probe; the kubeconfig is sealed and never returned',
  body: ref(ClusterRegistration),
  response: { 201: ref(ClusterAnswer), ...errors({ 409: 'a cluster of that name exists' }, 422) },
};
export const testClusterRoute = {
  tags,
  summary:
    'Dry-run a registration (cluster:register; audited cluster.test): connect and read the version (and namespaces); stores nothing',
  body: ref(ClusterTestRequest),
  response: { 200: ref(ClusterTestResult), ...errors() },
};
export const getClusterRoute = {
  tags,
  summary: 'One cluster (cluster:read), probed live unless shallow=1',
  params: ClusterParams,
  querystring: ShallowQuery,
  response: { 200: ref(ClusterAnswer), ...errors(NOT_FOUND) },
};
export const updateClusterRoute = {
  tags,
  summary:
    'Change the server URL, credentials (null = in-cluster) or allowlist (cluster:manage; audited cluster.update); the operator follows',
  params: ClusterParams,
  body: ref(ClusterUpdate),
  response: {
    200: ref(ClusterAnswer),
    ...errors(NOT_FOUND, { 409: 'Apps deploy to namespaces the allowlist would leave out' }, 422),
  },
};
export const removeClusterRoute = {
  tags,
  summary: 'Remove a cluster (cluster:manage; audited cluster.remove); 409 while Apps deploy to it',
  params: ClusterParams,
  response: {
    200: Type.Object({ deleted: Type.Boolean(), name: Type.String() }, closed),
    ...errors(NOT_FOUND, { 409: 'Apps still deploy to the cluster' }),
  },
};
export const clusterNamespacesRoute = {
  tags,
  summary: 'Namespaces of the cluster, live (cluster:read; within its allowlist when it has one)',
  params: ClusterParams,
  response: {
    200: Type.Object({ namespaces: Type.Array(Type.String()) }, closed),
    ...errors(NOT_FOUND, CLUSTER_502, CLUSTER_503),
  },
};
export const spawnShellRoute = {
  tags,
  summary:
    'Spawn a shell pod (cluster:shell; view or admin, from the caller’s permissions; audited cluster.shell) and answer how to attach',
  params: ClusterParams,
  body: Type.Object(
    {
      ttl_seconds: Type.Optional(
        Type.Integer({
          minimum: MIN_SHELL_TTL_SECONDS,
          maximum: MAX_SHELL_TTL_SECONDS,
          default: DEFAULT_SHELL_TTL_SECONDS,
          description: 'how long the shell lives',
        }),
      ),
    },
    closed,
  ),
  response: { 201: Type.Object({ shell: ref(Shell) }, closed), ...errors(NOT_FOUND, CLUSTER_502, CLUSTER_503) },
};

export const CLUSTER_COMPONENTS = [
  Cluster,
  ClusterAnswer,
  ClusterRegistration,
  ClusterUpdate,
  ClusterTestRequest,
  ClusterTestResult,
  Shell,
];
