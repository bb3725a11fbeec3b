/**
 * In-cluster configuration: svc running in a Pod reaches its own cluster's apiserver at KUBERNETES_SERVICE_HOST:
 * KUBERNETES_SERVICE_PORT with the Pod's ServiceAccount. The token is a bound token the kubelet rotates while the
 * Pod runs, so it is re-read from its file every minute (and after a 401); the CA is the ServiceAccount's ca.crt.
 */
import { readFileSync } from 'node:fs';
import { Credentials, TokenFile } from './credentials.ts';
import { KubeconfigError } from './errors.ts';
import type { ClusterConfig } from './kubeconfig.ts';

/** Where a Pod finds its ServiceAccount's credentials. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Overrides for tests and unusual mounts; defaults are Kubernetes' own. */
export interface InClusterOptions {
  /** Environment to read KUBERNETES_SERVICE_HOST/PORT from (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The token file (default `${SERVICE_ACCOUNT_DIR}/token`). */
  tokenPath?: string;
  /** The CA bundle (default `${SERVICE_ACCOUNT_DIR}/ca.crt`). */
  caPath?: string;
  /** How often the token file is re-read (default 60 s). */
  tokenRefreshMs?: number;
}

/** The in-cluster settings; KubeconfigError naming what is missing when svc does not run in a Pod. */
export function inClusterConfig(options: InClusterOptions = {}): ClusterConfig {
  const env = options.env ?? process.env;
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port) {
    throw new KubeconfigError(
      'in-cluster configuration needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT (set in every Pod); ' +
        'outside a cluster, give a kubeconfig',
    );
  }
  const tokenPath = options.tokenPath ?? `${SERVICE_ACCOUNT_DIR}/token`;
  const caPath = options.caPath ?? `${SERVICE_ACCOUNT_DIR}/ca.crt`;
  let ca: string;
  try {
    ca = readFileSync(caPath, 'utf8');
    readFileSync(tokenPath);
  } catch (err) {
    throw new KubeconfigError(
      `in-cluster configuration: the ServiceAccount's ${(err as NodeJS.ErrnoException).path ?? 'files'} cannot be ` +
        'read (is automountServiceAccountToken off?)',
      { cause: err },
    );
  }
  let server: URL;
  try {
    // An IPv6 service address needs brackets in a URL.
    server = new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}`);
  } catch {
    throw new KubeconfigError('in-cluster configuration: KUBERNETES_SERVICE_HOST/PORT do not form a URL');
  }
  return {
    origin: 'in-cluster',
    server,
    ca,
    insecureSkipVerify: false,
    credentials: new Credentials({
      dynamic: new TokenFile(tokenPath, 'in-cluster ServiceAccount token', options.tokenRefreshMs),
    }),
  };
}
