/**
 * The environment of an image workload (contract §2.3: each entry a literal `value`, a `secretRef` into an existing
 * Secret, or a `store` reference) as container env, once the `store` entries are resolved by the server (the
 * internal channel's `envValues`, once per sync, contract §4.4 rule 7):
 * - a vault/openbao entry becomes a literal env value;
 * - an external-secrets entry becomes a key of an ExternalSecret object (external-secrets.io/v1) rendered beside the
 *   Deployment, one per external-secrets store the App uses, and the container reads the Secret it produces.
 * Pure: the image source driver calls it with what the server answered.
 */
import type { ImageSource } from '../core/app-schema.ts';
import type { EnvStoreRef, ResolvedEnv } from '../internal/channel.ts';
import type { KubeObject } from './types.ts';

/** One env entry of an image workload, as the App spec holds it. */
export type WorkloadEnvVar = NonNullable<NonNullable<ImageSource['workload']>['env']>[number];

/** A container env var as Kubernetes takes it. */
export type ContainerEnv =
  | { name: string; value: string }
  | { name: string; valueFrom: { secretKeyRef: { name: string; key: string } } };

export const EXTERNAL_SECRET_API_VERSION = 'external-secrets.io/v1';

/** The `store` entries of a workload's env, in order: what to ask the server for. */
export function envStoreRefs(env: readonly WorkloadEnvVar[] = []): EnvStoreRef[] {
  return env.flatMap((e) => (e.store ? [{ name: e.name, id: e.store.id, path: e.store.path, key: e.store.key }] : []));
}

/**
 * The container env of `env` and the ExternalSecret objects it needs, given `resolved` (the server's answer to
 * `envStoreRefs(env)`, same order). ExternalSecrets are named `<app>-env-<n>` (n from 1, per external-secrets
 * store in order of first use); each produces the Secret of the same name, owned by it.
 */
export function workloadEnv(
  appName: string,
  env: readonly WorkloadEnvVar[] = [],
  resolved: readonly ResolvedEnv[] = [],
): { env: ContainerEnv[]; externalSecrets: KubeObject[] } {
  const out: ContainerEnv[] = [];
  const externalSecrets = new Map<string, ExternalSecretDraft>();
  let next = 0;
  for (const e of env) {
    if (e.secretRef) {
      out.push({ name: e.name, valueFrom: { secretKeyRef: { name: e.secretRef.name, key: e.secretRef.key } } });
    } else if (e.store) {
      const r = resolved[next++];
      if (!r || r.name !== e.name) throw new Error(`env.store entry ${e.name} was not resolved`);
      out.push(
        'value' in r ? { name: e.name, value: r.value } : fromStore(appName, e.name, r.externalSecret, externalSecrets),
      );
    } else {
      out.push({ name: e.name, value: e.value ?? '' });
    }
  }
  return {
    env: out,
    externalSecrets: [...externalSecrets.values()].map(({ object, data }) => ({
      ...object,
      spec: { ...(object['spec'] as object), data },
    })),
  };
}

/** An ExternalSecret being filled: its name, the object, its `spec.data` entries so far. */
interface ExternalSecretDraft {
  name: string;
  object: KubeObject;
  data: unknown[];
}

/**
 * The env var `name` read from the Secret an ExternalSecret of the store `x` names produces; that ExternalSecret
 * (one per store, refresh interval and kind, in order of first use) gets the entry.
 */
function fromStore(
  appName: string,
  name: string,
  x: ExternalSecretSource,
  drafts: Map<string, ExternalSecretDraft>,
): ContainerEnv {
  const group = JSON.stringify([x.storeName, x.storeKind, x.refreshInterval]);
  let es = drafts.get(group);
  if (!es) {
    const esName = `${appName}-env-${drafts.size + 1}`;
    es = { name: esName, object: externalSecret(esName, x), data: [] };
    drafts.set(group, es);
  }
  es.data.push({ secretKey: name, remoteRef: { key: x.path, property: x.key } });
  return { name, valueFrom: { secretKeyRef: { name: es.name, key: name } } };
}

type ExternalSecretSource = Extract<ResolvedEnv, { externalSecret: unknown }>['externalSecret'];

/** An ExternalSecret producing the Secret `name` from the store `x` names (its data added by the caller). */
function externalSecret(name: string, x: ExternalSecretSource): KubeObject {
  return {
    apiVersion: EXTERNAL_SECRET_API_VERSION,
    kind: 'ExternalSecret',
    metadata: { name },
    spec: {
      refreshInterval: x.refreshInterval,
      secretStoreRef: { name: x.storeName, kind: x.storeKind },
      target: { name, creationPolicy: 'Owner' },
    },
  };
}
