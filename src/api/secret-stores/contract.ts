/**
 * The contract of /secret-stores (contract §4.4). A store's config and credentials are the fields of its provider
 * (GET /secret-stores/providers publishes the same schemas): the create and test bodies have one variant per
 * registered provider, so the document states each provider's fields.
 */
import { type TSchema, Type } from 'typebox';
import {
  PROVIDERS,
  STORE_ERROR_CLASSES,
  STORE_PROVIDERS,
  STORE_STATUSES,
  STORE_TYPES,
} from '../../secrets/providers.ts';
import { errors } from '../contract/errors.ts';
import {
  acceptsEmpty,
  component,
  Deleted,
  DnsLabel,
  EmptyBody,
  Nullable,
  OpenObject,
  PathId,
  ref,
  StringEnum,
  Timestamp,
  withoutDefaults,
} from '../contract/schema.ts';

const closed = { additionalProperties: false } as const;

/** Body of POST /secret-stores: one of the registered providers, its config and credentials. */
export interface CreateStoreBody {
  name: string;
  type: string;
  provider: string;
  config?: Record<string, unknown> | undefined;
  credentials?: Record<string, unknown> | undefined;
}

/** Body of PATCH /secret-stores/{id}: each field omitted stays unchanged. */
export interface PatchStoreBody {
  name?: string | undefined;
  /** Merged over the stored config: a field given replaces, `null` removes it (back to its default). */
  config?: Record<string, unknown> | undefined;
  /** Replaces the stored credentials as a whole. */
  credentials?: Record<string, unknown> | undefined;
}

/** Body of POST /secret-stores/test. */
export type TestStoreBody = Omit<CreateStoreBody, 'name'> & { name?: string | undefined };

/** The store record of contract §2.7 (credentials are never part of it). */
export const SecretStore = component(
  'SecretStore',
  Type.Object(
    {
      id: Type.String({ description: 'sts_…' }),
      name: Type.String(),
      type: StringEnum(STORE_TYPES),
      provider: StringEnum(STORE_PROVIDERS),
      status: StringEnum(STORE_STATUSES),
      statusDetail: Type.String(),
      lastTestedAt: Nullable(Timestamp()),
      credentialsExpireAt: Nullable(Timestamp(), {
        description: 'Expiry of a stored token with a TTL; null otherwise',
      }),
      config: OpenObject(
        'The config fields of the provider (see GET /secret-stores/providers); age stores add `recipient`',
      ),
      references: Type.Integer({ description: 'How many uses by Apps (env.store, decryption.storeRef)' }),
      createdAt: Timestamp(),
      updatedAt: Timestamp(),
    },
    closed,
  ),
);

/** The config or credentials field of a provider (its own schema): required unless an empty object is a valid one. */
function field(schema: TSchema) {
  const own = withoutDefaults(schema);
  return acceptsEmpty(schema) ? Type.Optional(own) : own;
}

/** One variant per registered provider: type, provider, and that provider's config and credentials. */
function perProvider(extra: Record<string, TSchema>, description: string) {
  return Type.Union(
    PROVIDERS.map((p) =>
      Type.Object(
        {
          ...extra,
          type: Type.Literal(p.type),
          provider: Type.Literal(p.provider),
          config: field(p.config),
          credentials: field(p.credentials),
        },
        { ...closed, description: p.description },
      ),
    ),
    { description },
  );
}

// The variants are built from the provider catalogue, so TypeScript sees a union of one object type: the body's
// type is the service's own.
export const SecretStoreRequest = component(
  'SecretStoreRequest',
  Type.Unsafe<CreateStoreBody>(
    perProvider(
      { name: DnsLabel('unique in the org (Apps name sops stores by it)') },
      'a store of one of the registered providers (other SOPS key services are not registered)',
    ),
  ),
);

export const SecretStoreTestRequest = component(
  'SecretStoreTestRequest',
  Type.Unsafe<TestStoreBody>(
    perProvider(
      { name: Type.Optional(Type.String({ maxLength: 253, description: 'shown in the audit entry only' })) },
      'an unsaved store to test',
    ),
  ),
);

export const SecretStorePatch = component(
  'SecretStorePatch',
  Type.Object(
    {
      name: Type.Optional(DnsLabel()),
      config: Type.Optional(
        OpenObject(
          'merged over the stored config (a field set to null is removed); the result must fit the provider (422 otherwise)',
        ),
      ),
      credentials: Type.Optional(
        OpenObject('replaces the stored credentials as a whole (write-only); must fit the provider (422 otherwise)'),
      ),
    },
    closed,
  ),
);

export const SecretStoreTestResult = component(
  'SecretStoreTestResult',
  Type.Object(
    {
      status: StringEnum(STORE_STATUSES),
      latency: Type.Optional(Type.Integer({ description: 'Milliseconds the test took' })),
      details: Type.Optional(OpenObject('What succeeded (connected, untested)')),
      error: Type.Optional(Type.String({ description: 'Why it failed (status error)' })),
      errorClass: Type.Optional(StringEnum([...STORE_ERROR_CLASSES, 'refused'] as const)),
    },
    closed,
  ),
);

export const SecretStoreProvider = component(
  'SecretStoreProvider',
  Type.Object(
    {
      type: StringEnum(STORE_TYPES),
      provider: StringEnum(STORE_PROVIDERS),
      description: Type.String(),
      testable: Type.Boolean({ description: 'false: Test answers untested (eso)' }),
      config: OpenObject('JSON Schema of the config fields'),
      credentials: OpenObject('JSON Schema of the credential fields'),
    },
    closed,
  ),
);

export const SecretStoreReference = component(
  'SecretStoreReference',
  Type.Object(
    {
      name: Type.String(),
      namespace: Type.String(),
      cluster: Type.String(),
      usage: StringEnum(['env', 'decryption'] as const),
      env: Type.Optional(Type.String()),
    },
    closed,
  ),
);

const tags = ['secret-stores'];
const StoreParams = Type.Object({ id: PathId('store id (sts_…)') });
const NOT_FOUND = { 404: 'no such secret store in the caller org' };
const REFERENCES = {
  502: 'the management cluster could not be read (references)',
  503: 'the management cluster is not reachable yet (references)',
};
const TOO_MANY = { 429: 'too many tests by this user (see docs/api.md for the thresholds)' };

export const providersRoute = {
  tags,
  summary: 'Every store type/provider with its config and credential JSON Schemas (secretstore:read)',
  response: { 200: Type.Object({ items: Type.Array(ref(SecretStoreProvider)) }, closed), ...errors() },
};
export const listStoresRoute = {
  tags,
  summary: 'Secret stores of the caller org (secretstore:read)',
  response: { 200: Type.Object({ items: Type.Array(ref(SecretStore)) }, closed), ...errors(REFERENCES) },
};
export const getStoreRoute = {
  tags,
  summary: 'One secret store (secretstore:read)',
  params: StoreParams,
  response: { 200: ref(SecretStore), ...errors(NOT_FOUND, REFERENCES) },
};
export const storeReferencesRoute = {
  tags,
  summary: 'The Apps using the store (secretstore:read; env.store entries, decryption.storeRef)',
  params: StoreParams,
  response: {
    200: Type.Object({ items: Type.Array(ref(SecretStoreReference)) }, closed),
    ...errors(NOT_FOUND, REFERENCES),
  },
};
export const createStoreRoute = {
  tags,
  summary:
    'Create a store (secretstore:manage, session only; audited secretstore.create): 201, status untested, credentials stripped; 409 when the name is taken',
  body: ref(SecretStoreRequest),
  response: { 201: ref(SecretStore), ...errors({ 409: 'a store of that name exists' }, 422) },
};
export const updateStoreRoute = {
  tags,
  summary:
    'Update name, config (merged) and credentials (replaced) (secretstore:manage, session only; audited secretstore.update); omitted fields stay unchanged',
  params: StoreParams,
  body: ref(SecretStorePatch),
  response: {
    200: ref(SecretStore),
    ...errors(NOT_FOUND, { 409: 'name taken, or Apps name the store (decryption.storeRef)' }, 422, REFERENCES),
  },
};
export const deleteStoreRoute = {
  tags,
  summary: 'Delete a store (secretstore:manage, session only; audited secretstore.delete); 409 while Apps use it',
  params: StoreParams,
  response: {
    200: ref(Deleted),
    ...errors(NOT_FOUND, { 409: 'Apps use the store' }, REFERENCES),
  },
};
export const testUnsavedStoreRoute = {
  tags,
  summary:
    'Test an unsaved store (secretstore:manage, session only; audited secretstore.test); a failing store answers 200 with status error and its errorClass',
  body: ref(SecretStoreTestRequest),
  response: { 200: ref(SecretStoreTestResult), ...errors(422, TOO_MANY) },
};
export const testSavedStoreRoute = {
  tags,
  summary:
    'Re-test a saved store (secretstore:manage, session only; audited secretstore.test): its status becomes connected or error (eso: untested)',
  params: StoreParams,
  body: ref(EmptyBody),
  response: { 200: ref(SecretStoreTestResult), ...errors(NOT_FOUND, 422, TOO_MANY) },
};

export const SECRET_STORE_COMPONENTS = [
  SecretStore,
  SecretStoreRequest,
  SecretStoreTestRequest,
  SecretStorePatch,
  SecretStoreTestResult,
  SecretStoreProvider,
  SecretStoreReference,
];
