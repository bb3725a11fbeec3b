/** JSON schemas of the /secret-stores routes (contract §4.4), for validation and the OpenAPI document. */
import { DNS1123_LABEL_MAX } from '../../core/names.ts';
import { STORE_ERROR_CLASSES, STORE_PROVIDERS, STORE_STATUSES, STORE_TYPES } from '../../secrets/providers.ts';
import { ErrorBody } from '../apps/schemas.ts';

const Timestamp = { type: 'string', format: 'date-time' } as const;
const NullableTimestamp = { type: 'string', format: 'date-time', nullable: true } as const;

/** The store record of contract §2.7 (credentials are never part of it). */
export const StoreObject = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'sts_…' },
    name: { type: 'string' },
    type: { type: 'string', enum: [...STORE_TYPES] },
    provider: { type: 'string', enum: [...STORE_PROVIDERS] },
    status: { type: 'string', enum: [...STORE_STATUSES] },
    statusDetail: { type: 'string' },
    lastTestedAt: NullableTimestamp,
    credentialsExpireAt: { ...NullableTimestamp, description: 'Expiry of a stored token with a TTL; null otherwise' },
    config: {
      type: 'object',
      additionalProperties: true,
      description: 'The config fields of the provider (see GET /secret-stores/providers); age stores add `recipient`',
    },
    references: { type: 'integer', description: 'How many uses by Apps (env.store, decryption.storeRef)' },
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
} as const;

/** Path parameter of per-store routes. */
export const StoreParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

const Fields = (what: 'config' | 'credentials') =>
  ({
    type: 'object',
    description:
      what === 'config'
        ? 'The provider’s config fields, validated against its schema from GET /secret-stores/providers'
        : 'The provider’s credential fields (write-only, sealed at rest), validated against its schema from GET /secret-stores/providers',
  }) as const;

const TypeAndProvider = {
  type: { type: 'string', enum: [...STORE_TYPES] },
  provider: {
    type: 'string',
    enum: [...STORE_PROVIDERS],
    description:
      'vault or openbao (type vault), age (type sops), eso (type eso); other SOPS key services (aws-kms, gcp-kms, pgp, vault-transit) are not registered (400)',
  },
} as const;

const Name = { type: 'string', minLength: 1, maxLength: DNS1123_LABEL_MAX, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' };

/** Body of POST /secret-stores. */
export const CreateStoreBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type', 'provider'],
  properties: {
    name: { ...Name, description: 'Unique in the org (a DNS label: Apps name sops stores by it)' },
    ...TypeAndProvider,
    config: Fields('config'),
    credentials: Fields('credentials'),
  },
} as const;

/** Body of PATCH /secret-stores/{id}. */
export const PatchStoreBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: Name,
    config: { ...Fields('config'), description: 'Merged over the stored config; a field set to null is removed' },
    credentials: { ...Fields('credentials'), description: 'Replaces the stored credentials as a whole (write-only)' },
  },
} as const;

/** Body of POST /secret-stores/test. */
export const TestStoreBody = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'provider'],
  properties: {
    name: { type: 'string', maxLength: 253, description: 'Shown in the audit entry only' },
    ...TypeAndProvider,
    config: Fields('config'),
    credentials: Fields('credentials'),
  },
} as const;

/** A test result (contract §4.4 rule 3). */
export const TestResult = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { type: 'string', enum: [...STORE_STATUSES] },
    latency: { type: 'integer', description: 'Milliseconds the test took' },
    details: { type: 'object', additionalProperties: true, description: 'What succeeded (connected, untested)' },
    error: { type: 'string', description: 'Why it failed (status error)' },
    errorClass: { type: 'string', enum: [...STORE_ERROR_CLASSES] },
  },
} as const;

/** One provider of GET /secret-stores/providers. */
export const ProviderObject = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: [...STORE_TYPES] },
    provider: { type: 'string', enum: [...STORE_PROVIDERS] },
    description: { type: 'string' },
    testable: { type: 'boolean', description: 'false: Test answers untested (eso)' },
    config: { type: 'object', additionalProperties: true, description: 'JSON Schema of the config fields' },
    credentials: { type: 'object', additionalProperties: true, description: 'JSON Schema of the credential fields' },
  },
} as const;

/** One App using a store. */
export const ReferenceObject = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    namespace: { type: 'string' },
    cluster: { type: 'string' },
    usage: { type: 'string', enum: ['env', 'decryption'] },
    env: { type: 'string' },
  },
} as const;

const MEANING: Record<number, string> = {
  400: 'invalid input: body, provider fields, an unregistered provider, or an address the outbound policy refuses',
  401: 'no valid session or API key',
  403: 'missing permission (secretstore:manage is session-only: API keys are refused)',
  404: 'no such secret store in the caller org',
  409: 'name taken, or the store is used by Apps',
  413: 'request body over 1 MiB',
  415: 'request body that is not JSON',
  429: 'too many tests by this user (see docs/api.md for the thresholds)',
  500: 'internal error',
  502: 'the management cluster could not be read (references)',
  503: 'the management cluster is not reachable yet (references)',
};

/** The error answers of a /secret-stores route: 401, 403 and 500 always, plus `also`. */
export function storeErrors(...also: number[]) {
  const statuses = [...new Set([401, 403, 500, ...also])].sort();
  return Object.fromEntries(statuses.map((s) => [s, { description: MEANING[s] ?? 'error', ...ErrorBody }])) as Record<
    number,
    typeof ErrorBody & { description: string }
  >;
}
