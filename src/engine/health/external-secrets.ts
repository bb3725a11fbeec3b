/**
 * external-secrets (external-secrets.io): an ExternalSecret (and ClusterExternalSecret, PushSecret) is Healthy once
 * `Ready` (the secret is synced), Degraded on a failure reason (`SecretSyncedError`); a SecretStore or
 * ClusterSecretStore is Degraded whenever `Ready=False` (its provider configuration cannot work).
 */
import { readyHealth, readyOrDegraded } from './generic.ts';
import type { Health, LiveObject } from './status.ts';

const CONTROLLER = 'external-secrets';

/** Health of a live ExternalSecret, ClusterExternalSecret or PushSecret. */
export function externalSecretHealth(obj: LiveObject): Health {
  return readyHealth(obj, CONTROLLER);
}

/** Health of a live SecretStore or ClusterSecretStore. */
export function secretStoreHealth(obj: LiveObject): Health {
  return readyOrDegraded(obj, CONTROLLER);
}
