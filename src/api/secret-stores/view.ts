/** How secret stores look through the API (contract §2.7): never a credential, sealed or not. */
import type { Static } from 'typebox';
import type { StoreUse } from '../../secrets/references.ts';
import type { TestOutcome } from '../../secrets/tester.ts';
import type { SecretStoreRecord } from '../../store/secret-stores.ts';
import type { SecretStore, SecretStoreTestResult } from './contract.ts';

type View = Static<typeof SecretStore>;

/** The store record of contract §2.7, `references` counted from the org's Apps. */
export function storeView(record: SecretStoreRecord, references: number): View {
  return {
    id: record.id,
    name: record.name,
    type: record.type as View['type'],
    provider: record.provider as View['provider'],
    status: record.status as View['status'],
    statusDetail: record.statusDetail,
    lastTestedAt: record.lastTestedAt,
    credentialsExpireAt: record.credentialsExpireAt,
    config: record.config,
    references,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export type StoreView = View;

/** One App using a store, as `GET /secret-stores/{id}/references` lists it. */
export interface ReferenceView {
  /** The App's name and destination (the path of its /apps routes). */
  name: string;
  namespace: string;
  cluster: string;
  usage: StoreUse['usage'];
  /** The environment variable, for usage `env`. */
  env?: string;
}

/** A test's result (contract §4.4 rule 3): the status and what it found; when the token expires stays on the store. */
export function testResultView(outcome: TestOutcome): Static<typeof SecretStoreTestResult> {
  if (outcome.status === 'error') {
    return { status: 'error', latency: outcome.latency, error: outcome.error, errorClass: outcome.errorClass };
  }
  return { status: outcome.status, latency: outcome.latency, details: outcome.details };
}
