/**
 * The contract of /registries (docs/api.md "Registries"; the contract names registries, `registry:manage` and their
 * audit actions but not their routes) and of the registry notification endpoint. Credentials are write-only.
 */
import { Type } from 'typebox';
import { errors } from '../contract/errors.ts';
import {
  component,
  DeletedById,
  DnsLabel,
  EmptyBody,
  extended,
  HOST_LABEL,
  Nullable,
  PathId,
  PORT,
  ref,
  StringEnum,
  Timestamp,
} from '../contract/schema.ts';
import { MAX_CA_BYTES } from './input.ts';

const closed = { additionalProperties: false } as const;

const registryFields = {
  id: Type.String(),
  name: Type.String(),
  host: Type.String(),
  insecure: Type.Boolean(),
  ca: Nullable(Type.String()),
  username: Nullable(Type.String()),
  has_password: Type.Boolean(),
  status: StringEnum(['untested', 'connected', 'error'] as const),
  status_detail: Type.String(),
  last_tested_at: Nullable(Timestamp()),
  notification_url: Type.String({ description: 'where the registry posts its notifications' }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
};

export const Registry = component('Registry', Type.Object(registryFields, closed));

export const RegistryWithToken = extended('RegistryWithToken', Registry, {
  notification_token: Type.Optional(
    Type.String({ description: 'Bearer token for the notification endpoint; shown only in this answer' }),
  ),
});

export const RegistryTestResult = component(
  'RegistryTestResult',
  Type.Union([
    Type.Object(
      {
        status: Type.Literal('connected'),
        latency: Type.Integer({ description: 'milliseconds' }),
        details: Type.Object({ host: Type.String(), authenticated: Type.Boolean() }, closed),
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
          'permission',
          'notfound',
          'provider',
        ] as const),
      },
      closed,
    ),
  ]),
);

const connection = {
  host: Type.String({
    maxLength: 253,
    pattern: `^(${HOST_LABEL}(\\.${HOST_LABEL})*|\\[[0-9a-fA-F:.]+\\])(:${PORT})?$`,
    description:
      'registry host, name[:port], no scheme or path; 422 when the outbound policy refuses its addresses or it does not resolve',
  }),
  insecure: Type.Optional(Type.Boolean({ description: 'plain http instead of https (422 in production mode)' })),
  ca: Type.Optional(
    Nullable(
      Type.String({
        maxLength: MAX_CA_BYTES,
        pattern: '^[\\u0000-\\u007f]*-----BEGIN CERTIFICATE-----[\\u0000-\\u007f]*$',
        description: 'PEM CA certificates to trust (ASCII, at most 64 KiB)',
      }),
    ),
  ),
  username: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 256, description: 'set with password (422 otherwise)' })),
  ),
  password: Type.Optional(
    Nullable(
      Type.String({ minLength: 1, maxLength: 4096, description: 'write-only; sealed at rest; set with username' }),
    ),
  ),
};

export const RegistryRequest = component(
  'RegistryRequest',
  Type.Object({ name: DnsLabel('unique in the org; Apps name it as registryRef'), ...connection }, closed),
);

export const RegistryUpdate = component(
  'RegistryUpdate',
  Type.Object(
    {
      name: Type.Optional(DnsLabel()),
      host: Type.Optional(connection.host),
      insecure: connection.insecure,
      ca: connection.ca,
      username: connection.username,
      password: connection.password,
      rotate_notification_token: Type.Optional(Type.Boolean({ description: 'answer a new notification token (once)' })),
    },
    { ...closed, minProperties: 1 },
  ),
);

export const RegistryConnection = component('RegistryConnection', Type.Object(connection, closed));

const tags = ['registries'];
const IdParams = Type.Object({ id: PathId('registry id (reg_…)') });
const NOT_FOUND = { 404: 'no such registry in this organization' };

export const listRegistriesRoute = {
  tags,
  summary: 'Registries of the caller org (registry:read)',
  response: { 200: Type.Object({ registries: Type.Array(ref(Registry)) }, closed), ...errors() },
};
export const getRegistryRoute = {
  tags,
  summary: 'One registry (registry:read)',
  params: IdParams,
  response: { 200: ref(Registry), ...errors(NOT_FOUND) },
};
export const createRegistryRoute = {
  tags,
  summary:
    'Register a registry (registry:manage, session only; audited registry.create); 201 with a notification token shown once',
  body: ref(RegistryRequest),
  response: { 201: ref(RegistryWithToken), ...errors({ 409: 'a registry of that name exists' }, 422) },
};
export const updateRegistryRoute = {
  tags,
  summary:
    'Change a registry (registry:manage, session only; audited registry.update); omitted fields stay, null clears ca/username/password; 409 renaming a registry apps use',
  params: IdParams,
  body: ref(RegistryUpdate),
  response: {
    200: ref(RegistryWithToken),
    ...errors(NOT_FOUND, { 409: 'name taken, or apps use the registry under its name' }, 422),
  },
};
export const deleteRegistryRoute = {
  tags,
  summary:
    'Delete a registry (registry:manage, session only; audited registry.delete); 409 naming the apps that use it',
  params: IdParams,
  response: {
    200: ref(DeletedById),
    ...errors(NOT_FOUND, { 409: 'apps use the registry' }),
  },
};
export const testUnsavedRegistryRoute = {
  tags,
  summary:
    'Test unsaved connection fields (registry:manage, session only; audited registry.test): GET /v2/ through the auth challenge; 200 with {status:"connected",latency,details} or {status:"error",error,errorClass}',
  body: ref(RegistryConnection),
  response: { 200: ref(RegistryTestResult), ...errors(422) },
};
export const testSavedRegistryRoute = {
  tags,
  summary: 'Test a saved registry and record the result (registry:manage, session only; status connected or error)',
  params: IdParams,
  body: ref(EmptyBody),
  response: { 200: ref(RegistryTestResult), ...errors(NOT_FOUND) },
};

/** One event of a distribution notification envelope, as much as svc reads (the rest is accepted and ignored). */
const RegistryEvent = Type.Object({
  action: Type.Optional(Type.String()),
  target: Type.Optional(Type.Object({ repository: Type.Optional(Type.String()), tag: Type.Optional(Type.String()) })),
});

export const notificationsRoute = {
  tags,
  summary:
    'Registry notification endpoint (distribution `notifications`): a pushed tag redeploys the Follow Apps on it at once, a pushed chart version syncs the automated HelmChart Apps whose range allows it; authenticated by the registry’s notification token as a Bearer token',
  params: IdParams,
  body: Type.Object({ events: Type.Array(RegistryEvent, { maxItems: 1000 }) }),
  security: [{ notificationToken: [] }],
  response: {
    200: Type.Object(
      {
        matched: Type.Integer({ description: 'Follow Apps on a pushed tag' }),
        deployed: Type.Array(Type.String(), { description: 'Apps given a Deploy' }),
        synced: Type.Array(Type.String(), {
          description: 'HelmChart Apps on a pushed chart version in their range, given a Sync',
        }),
      },
      closed,
    ),
    ...errors(
      { base: false },
      { 400: 'not an event envelope', 401: 'no or a wrong notification token', 500: 'internal error' },
    ),
  },
};

export const REGISTRY_COMPONENTS = [
  Registry,
  RegistryWithToken,
  RegistryTestResult,
  RegistryRequest,
  RegistryUpdate,
  RegistryConnection,
];
