/**
 * The request schemas of the operator's internal routes (src/api/routes/internal.ts; hidden from the OpenAPI
 * document). Their answers are the channel's own types (src/internal/channel.ts), serialized whole.
 */
import { Type } from 'typebox';
import { SYSTEM_AUDIT_ACTIONS } from '../../internal/channel.ts';
import { OpenObject, StringEnum } from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;
const Name63 = Type.String({ minLength: 1, maxLength: 63 });
const AppIdentity = {
  app_namespace: Name63,
  app_name: Type.String({ minLength: 1, maxLength: 253 }),
};

export const auditRoute = {
  hide: true,
  body: Type.Object(
    {
      org_namespace: Name63,
      action: StringEnum(SYSTEM_AUDIT_ACTIONS),
      resource_type: Type.Literal('app'),
      resource_id: Type.Optional(Type.String({ maxLength: 128 })),
      resource_name: Type.String({ minLength: 1, maxLength: 253 }),
      details: OpenObject(),
    },
    closed,
  ),
};

export const clusterAccessRoute = {
  hide: true,
  params: Type.Object({ name: Name63 }),
  querystring: Type.Object({ org_namespace: Name63 }, closed),
};

export const clustersRoute = {
  hide: true,
  querystring: Type.Object({ org_namespace: Name63 }, closed),
};

export const decryptionKeyRoute = {
  hide: true,
  body: Type.Object({ ...AppIdentity, store_ref: Name63 }, closed),
};

const EnvStoreRef = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    id: Type.String({ minLength: 1 }),
    path: Type.String({ minLength: 1 }),
    key: Type.String({ minLength: 1 }),
  },
  closed,
);

export const envValuesRoute = {
  hide: true,
  body: Type.Object({ ...AppIdentity, refs: Type.Array(EnvStoreRef, { maxItems: 256 }) }, closed),
};

export const registryRoute = {
  hide: true,
  params: Type.Object({ org_namespace: Name63, name: Name63 }),
};

export const healthChecksRoute = {
  hide: true,
  params: Type.Object({ org_namespace: Name63 }),
};

export const deliveryWindowsRoute = {
  hide: true,
  params: Type.Object({ org_namespace: Name63 }),
};

export const catalogTemplateRoute = {
  hide: true,
  params: Type.Object({ org_namespace: Name63, name: Name63 }),
  querystring: Type.Object({ version: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,9}$' })) }, closed),
};

export const sourceAccessRoute = {
  hide: true,
  body: Type.Object(
    {
      org_namespace: Name63,
      type: StringEnum(['git', 'helm'] as const),
      url: Type.String({ minLength: 1, maxLength: 2048 }),
      repository_ref: Type.Optional(Name63),
    },
    closed,
  ),
};
