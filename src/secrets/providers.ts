/**
 * The secret-store catalogue (contract §2.7, §4.4): every store type and provider svc registers, with the JSON
 * Schema of its config and credential fields. The same schemas validate create, patch and test bodies and are
 * published by `GET /secret-stores/providers`, so what the API documents is what it enforces. Pure data and
 * validation; the network side is ./vault.ts, ./age.ts and ./tester.ts.
 */
import { type Static, type TSchema, Type } from 'typebox';
import { InputError } from '../core/errors.ts';
import { schemaProblems } from '../core/validator.ts';

export const STORE_TYPES = ['vault', 'sops', 'eso'] as const;
export type StoreType = (typeof STORE_TYPES)[number];
export const STORE_PROVIDERS = ['vault', 'openbao', 'age', 'eso'] as const;
export type StoreProvider = (typeof STORE_PROVIDERS)[number];
export const STORE_STATUSES = ['connected', 'error', 'untested'] as const;
export type StoreStatus = (typeof STORE_STATUSES)[number];
/** Why a store test or fetch failed (contract §4.4 rule 3). */
export const STORE_ERROR_CLASSES = [
  'dns',
  'tls',
  'connect',
  'timeout',
  'auth',
  'permission',
  'notfound',
  'provider',
] as const;
export type StoreErrorClass = (typeof STORE_ERROR_CLASSES)[number];

/**
 * SOPS key services that exist upstream but that svc does not register (contract §4.4 rule 2): a store of type sops
 * naming one is refused with 400. svc decrypts SOPS files with age keys only.
 */
export const UNREGISTERED_SOPS_PROVIDERS = ['aws-kms', 'gcp-kms', 'azure-kv', 'pgp', 'vault-transit'] as const;

const closed = { additionalProperties: false } as const;
/** A mount path as Vault and OpenBao print it, without leading or trailing slashes. */
const MOUNT_PATH = '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$';

const VaultConfig = Type.Object(
  {
    address: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'Base URL of the server, e.g. https://vault.example.com:8200. https is required in production mode; loopback, link-local (cloud metadata) and unspecified addresses are refused by the outbound policy (SVC_OUTBOUND_SCOPE).',
    }),
    mountPath: Type.Optional(
      Type.String({
        default: 'secret',
        pattern: MOUNT_PATH,
        maxLength: 256,
        description: 'Mount path of the KV version 2 secrets engine that values are read from.',
      }),
    ),
    authMount: Type.Optional(
      Type.String({
        default: 'approle',
        pattern: MOUNT_PATH,
        maxLength: 256,
        description: 'Mount path of the AppRole auth method (used with roleId and secretId).',
      }),
    ),
    caCert: Type.Optional(
      Type.String({
        maxLength: 65536,
        pattern: '-----BEGIN CERTIFICATE-----',
        description: 'PEM certificate(s) trusted for the server besides the system CAs (a private CA).',
      }),
    ),
  },
  { ...closed, description: 'Where the Vault or OpenBao server is and which KV version 2 mount to read.' },
);

const VaultCredentials = Type.Union(
  [
    Type.Object(
      { token: Type.String({ minLength: 1, maxLength: 4096, description: 'A Vault/OpenBao token.' }) },
      { ...closed, description: 'Token authentication.' },
    ),
    Type.Object(
      {
        roleId: Type.String({ minLength: 1, maxLength: 512, description: 'AppRole role_id.' }),
        secretId: Type.String({ minLength: 1, maxLength: 512, description: 'AppRole secret_id.' }),
      },
      { ...closed, description: 'AppRole authentication (a login per test and fetch).' },
    ),
  ],
  { description: 'Either a token, or an AppRole roleId and secretId (Kubernetes auth is not supported). Write-only.' },
);

const AgeConfig = Type.Object(
  {},
  {
    ...closed,
    description:
      'No settings. svc adds `recipient`, the public key (age1…) to encrypt SOPS files for, derived from the private key.',
  },
);

const AgeCredentials = Type.Object(
  {
    privateKey: Type.String({
      pattern: '^AGE-SECRET-KEY-1[0-9A-Z]{58}$',
      description: 'An age X25519 identity (AGE-SECRET-KEY-1…), as `age-keygen` prints it. Write-only.',
    }),
  },
  { ...closed, description: 'The age identity SOPS files are decrypted with.' },
);

const EsoConfig = Type.Object(
  {
    storeName: Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
      description: 'Name of the external-secrets SecretStore or ClusterSecretStore in the destination cluster.',
    }),
    storeKind: Type.Optional(
      Type.Unsafe<'SecretStore' | 'ClusterSecretStore'>(
        Type.String({
          enum: ['SecretStore', 'ClusterSecretStore'],
          default: 'ClusterSecretStore',
          description: 'Kind of that store.',
        }),
      ),
    ),
    refreshInterval: Type.Optional(
      Type.String({
        default: '1h',
        pattern: '^([0-9]+(ms|s|m|h))+$',
        description: 'How often the external-secrets controller refreshes the Secret it produces.',
      }),
    ),
  },
  {
    ...closed,
    description:
      'The external-secrets store that env.store entries render ExternalSecret objects (external-secrets.io/v1) for.',
  },
);

const NoCredentials = Type.Object(
  {},
  { ...closed, description: 'None: the external-secrets controller in the cluster holds the credentials.' },
);

export type VaultConfig = Static<typeof VaultConfig>;
export type VaultCredentials = Static<typeof VaultCredentials>;
export type AgeCredentials = Static<typeof AgeCredentials>;
export type EsoConfig = Static<typeof EsoConfig>;

/** One registered provider: its type, name, and field schemas. */
export interface ProviderDefinition {
  type: StoreType;
  provider: StoreProvider;
  description: string;
  config: TSchema;
  credentials: TSchema;
  /** Whether Test talks to anything (eso: no, contract §4.4 rule 6). */
  testable: boolean;
}

/** Every registered provider, in the order the providers route lists them. */
export const PROVIDERS: readonly ProviderDefinition[] = [
  {
    type: 'vault',
    provider: 'vault',
    description: 'HashiCorp Vault: token or AppRole; values read from a KV version 2 mount.',
    config: VaultConfig,
    credentials: VaultCredentials,
    testable: true,
  },
  {
    type: 'vault',
    provider: 'openbao',
    description: 'OpenBao (Vault API): token or AppRole; values read from a KV version 2 mount.',
    config: VaultConfig,
    credentials: VaultCredentials,
    testable: true,
  },
  {
    type: 'sops',
    provider: 'age',
    description: 'An age identity that decrypts SOPS-encrypted manifests of Git Apps at apply.',
    config: AgeConfig,
    credentials: AgeCredentials,
    testable: true,
  },
  {
    type: 'eso',
    provider: 'eso',
    description:
      'external-secrets (ESO): env.store entries render ExternalSecret objects; the controller in the cluster fetches.',
    config: EsoConfig,
    credentials: NoCredentials,
    testable: false,
  },
];

/** The registered provider for `type` and `provider`; InputError (400) naming what is registered otherwise. */
export function providerOf(type: string, provider: string): ProviderDefinition {
  const found = PROVIDERS.find((p) => p.type === type && p.provider === provider);
  if (found) return found;
  if (!(STORE_TYPES as readonly string[]).includes(type)) {
    throw new InputError(`type "${type}" is not a secret-store type (one of ${STORE_TYPES.join(', ')})`);
  }
  const registered = PROVIDERS.filter((p) => p.type === type).map((p) => p.provider);
  const why = (UNREGISTERED_SOPS_PROVIDERS as readonly string[]).includes(provider)
    ? ` (svc decrypts SOPS files with age keys only)`
    : '';
  throw new InputError(
    `provider "${provider}" is not registered for type ${type}${why}: use ${registered.join(' or ')}`,
  );
}

/** Validates `value` against one of the provider's schemas (defaults filled in); InputError listing every problem. */
export function validateFields(schema: TSchema, value: unknown, field: 'config' | 'credentials'): void {
  const problems = schemaProblems(schema, value, field);
  if (problems.length === 0) return;
  // A union's per-branch problems contradict each other ("token is required; roleId is required"): say what fits.
  const described = schema as { anyOf?: unknown; description?: string };
  if (Array.isArray(described.anyOf)) throw new InputError(`${field}: ${String(described.description)}`);
  throw new InputError(problems.join('; '));
}
