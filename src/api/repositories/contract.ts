/**
 * The contract of /repositories (docs/api.md "Repositories"; issue 24): an org's Git and Helm repositories and their
 * credentials. Credentials are write-only: an answer says which are set (`has_…`), never their values. Rules the
 * schema cannot state (a URL of the repository's type without a password, credentials that fit the URL, the
 * outbound policy on the host, plain http for oci:// only and never in production mode) answer 422.
 */
import { Type } from 'typebox';
import { errors } from '../contract/errors.ts';
import {
  component,
  DeletedById,
  DnsLabel,
  EmptyBody,
  Nullable,
  PathId,
  ref,
  StringEnum,
  Timestamp,
} from '../contract/schema.ts';
import { MAX_PEM_BYTES } from './input.ts';

const closed = { additionalProperties: false } as const;

const REPOSITORY_TYPES = ['git', 'helm'] as const;

export const Repository = component(
  'Repository',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      type: StringEnum(REPOSITORY_TYPES),
      url: Type.String(),
      insecure: Type.Boolean(),
      username: Nullable(Type.String()),
      has_password: Type.Boolean(),
      has_ssh_private_key: Type.Boolean(),
      known_hosts: Nullable(Type.String()),
      ca: Nullable(Type.String()),
      tls_client_cert: Nullable(Type.String()),
      has_tls_client_key: Type.Boolean(),
      status: StringEnum(['untested', 'connected', 'error'] as const),
      status_detail: Type.String(),
      last_tested_at: Nullable(Timestamp()),
      created_at: Timestamp(),
      updated_at: Timestamp(),
    },
    { ...closed, description: 'a Git or Helm repository; credentials are never returned, only whether each is set' },
  ),
);

export const RepositoryTestResult = component(
  'RepositoryTestResult',
  Type.Union([
    Type.Object(
      {
        status: Type.Literal('connected'),
        latency: Type.Integer({ description: 'milliseconds' }),
        details: Type.Object(
          {
            url: Type.String(),
            authenticated: Type.Boolean(),
            found: Type.Integer({ description: 'refs (git), charts (HTTP index), 1 (an OCI registry that answered)' }),
          },
          closed,
        ),
      },
      closed,
    ),
    Type.Object(
      {
        status: Type.Literal('error'),
        error: Type.String(),
        errorClass: StringEnum([
          'dns',
          'tls',
          'connect',
          'timeout',
          'refused',
          'auth',
          'hostkey',
          'permission',
          'notfound',
          'provider',
        ] as const),
      },
      closed,
    ),
  ]),
);

export const RepositoryReference = component(
  'RepositoryReference',
  Type.Object(
    {
      app: Type.String(),
      via: StringEnum(['repositoryRef', 'url'] as const, {
        description: 'repositoryRef: the App names it; url: it is the longest repository covering the App’s URL',
      }),
    },
    closed,
  ),
);

export const ChartListing = component(
  'ChartListing',
  Type.Object({ name: Type.String(), versions: Type.Array(Type.String(), { description: 'newest first' }) }, closed),
);

const Pem = (description: string) =>
  Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: MAX_PEM_BYTES, description })));

const connection = {
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'git: an http(s)://, ssh://, git:// or user@host:path URL; helm: an http(s):// repository or oci:// registry path. Covers every source URL below it. 422 when it does not fit the type, carries a password, or the outbound policy refuses its host.',
  }),
  insecure: Type.Optional(
    Type.Boolean({ description: 'plain http for an oci:// repository (422 otherwise, and in production mode)' }),
  ),
  username: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256 }))),
  password: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 4096, description: 'password or token; write-only' })),
  ),
  ssh_private_key: Pem('SSH private key (OpenSSH or PEM) for ssh URLs; write-only'),
  known_hosts: Pem('known_hosts lines of the SSH hosts (an unknown host key fails the fetch)'),
  ca: Pem('PEM CA certificates to trust'),
  tls_client_cert: Pem('PEM client certificate (set with tls_client_key)'),
  tls_client_key: Pem('PEM client key (set with tls_client_cert); write-only'),
};

const RepositoryType = StringEnum(REPOSITORY_TYPES);

export const RepositoryRequest = component(
  'RepositoryRequest',
  Type.Object(
    { name: DnsLabel('unique in the org; Apps name it as repositoryRef'), type: RepositoryType, ...connection },
    closed,
  ),
);

export const RepositoryUpdate = component(
  'RepositoryUpdate',
  Type.Object(
    {
      name: Type.Optional(DnsLabel()),
      url: Type.Optional(connection.url),
      insecure: connection.insecure,
      username: connection.username,
      password: connection.password,
      ssh_private_key: connection.ssh_private_key,
      known_hosts: connection.known_hosts,
      ca: connection.ca,
      tls_client_cert: connection.tls_client_cert,
      tls_client_key: connection.tls_client_key,
    },
    { ...closed, minProperties: 1, description: 'omitted fields stay; null clears an optional field' },
  ),
);

export const RepositoryConnection = component(
  'RepositoryConnection',
  Type.Object({ type: RepositoryType, ...connection }, closed),
);

const tags = ['repositories'];
const IdParams = Type.Object({ id: PathId('repository id (repo_…)') });
const NOT_FOUND = { 404: 'no such repository in this organization' };

export const listRepositoriesRoute = {
  tags,
  summary: 'Repositories of the caller org (repository:read)',
  response: { 200: Type.Object({ repositories: Type.Array(ref(Repository)) }, closed), ...errors() },
};
export const getRepositoryRoute = {
  tags,
  summary: 'One repository (repository:read)',
  params: IdParams,
  response: { 200: ref(Repository), ...errors(NOT_FOUND) },
};
export const repositoryReferencesRoute = {
  tags,
  summary: 'The apps using a repository: by repositoryRef, or covered by its URL (repository:read)',
  params: IdParams,
  response: {
    200: Type.Object({ references: Type.Array(ref(RepositoryReference)) }, closed),
    ...errors(NOT_FOUND),
  },
};
export const repositoryChartsRoute = {
  tags,
  summary:
    'The charts of a Helm repository with their versions, newest first (repository:read); an oci:// repository lists the versions of ?chart= only; 422 for a git repository',
  params: IdParams,
  querystring: Type.Object(
    {
      chart: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 250,
          pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
          description: 'chart name',
        }),
      ),
    },
    closed,
  ),
  response: {
    200: Type.Object({ charts: Type.Array(ref(ChartListing)) }, closed),
    ...errors(NOT_FOUND, 422, { 502: 'the repository could not be read' }),
  },
};
export const createRepositoryRoute = {
  tags,
  summary: 'Register a repository and its credentials (repository:manage, session only; audited repository.create)',
  body: ref(RepositoryRequest),
  response: { 201: ref(Repository), ...errors({ 409: 'a repository of that name exists' }, 422) },
};
export const updateRepositoryRoute = {
  tags,
  summary:
    'Change a repository (repository:manage, session only; audited repository.update); omitted fields stay, null clears; 409 renaming one apps name',
  params: IdParams,
  body: ref(RepositoryUpdate),
  response: {
    200: ref(Repository),
    ...errors(NOT_FOUND, { 409: 'name taken, or apps name the repository' }, 422),
  },
};
export const deleteRepositoryRoute = {
  tags,
  summary:
    'Delete a repository (repository:manage, session only; audited repository.delete); 409 naming the apps that use it',
  params: IdParams,
  response: {
    200: ref(DeletedById),
    ...errors(NOT_FOUND, { 409: 'apps use the repository' }),
  },
};
export const testUnsavedRepositoryRoute = {
  tags,
  summary:
    'Test unsaved fields (repository:manage, session only; audited repository.test): git ls-remote, the chart index, or the OCI registry API; 200 with {status:"connected",latency,details} or {status:"error",error,errorClass}',
  body: ref(RepositoryConnection),
  response: { 200: ref(RepositoryTestResult), ...errors(422) },
};
export const testSavedRepositoryRoute = {
  tags,
  summary: 'Test a saved repository and record the result (repository:manage, session only; status connected or error)',
  params: IdParams,
  body: ref(EmptyBody),
  response: { 200: ref(RepositoryTestResult), ...errors(NOT_FOUND) },
};

export const REPOSITORY_COMPONENTS = [
  Repository,
  RepositoryTestResult,
  RepositoryReference,
  ChartListing,
  RepositoryRequest,
  RepositoryUpdate,
  RepositoryConnection,
];
