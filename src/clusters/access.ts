/**
 * How svc reaches a registered cluster, on the server (probes, namespaces, events, shells) and in the operator
 * (remote deploys) alike: the record's `server_url`, and either the kubeconfig a user registered (untrusted: inline
 * credentials only, no files, no exec or auth-provider plugins, no proxy) or, without one, svc's own in-cluster
 * ServiceAccount. Every connection follows the outbound address policy (src/net, SVC_OUTBOUND_SCOPE): the server
 * URL's address is checked before connecting and every host name is resolved through the guarded lookup, so a
 * registered cluster cannot point svc at a link-local metadata endpoint (docs/compatibility.md, "Registered
 * clusters and the outbound policy").
 */

import { InputError } from '../core/errors.ts';
import {
  clusterConfig,
  connect,
  type InClusterOptions,
  type KubeConnection,
  KubeconfigError,
  parseKubeconfig,
} from '../kube/index.ts';
import { checkOutboundURL, guardedLookup, type OutboundPolicy } from '../net/guard.ts';

/** What connecting to a registered cluster needs (the kubeconfig in plain text: handle with care, never log). */
export interface ClusterAccess {
  name: string;
  /** The record's `server_url` (https://), used instead of the kubeconfig's server. */
  serverURL: string;
  /** Kubeconfig YAML; undefined = svc's own in-cluster credentials. */
  kubeconfig?: string;
}

/** How connections are made: the outbound policy, and in-cluster overrides for tests. */
export interface AccessOptions {
  outbound: OutboundPolicy;
  inCluster?: InClusterOptions;
}

/**
 * Checks a server URL a caller gave: an https:// URL whose address (when it is an IP literal) the outbound policy
 * allows. Throws InputError (400) naming the problem.
 */
export function checkServerURL(value: string, outbound: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InputError(`server_url "${value}" is not a URL`);
  }
  if (url.protocol !== 'https:') throw new InputError('server_url must be an https:// URL');
  if (url.username || url.password) throw new InputError('server_url must not carry a user name or password');
  if (url.search || url.hash) throw new InputError('server_url must not carry a query or fragment');
  checkOutboundURL(url, outbound);
  return url;
}

/**
 * Checks a kubeconfig a caller gave (register, update, test): parseable, with a current context naming a cluster and
 * a user whose credentials are inline. Refused (InputError, 400): unparseable text, `exec` and `auth-provider`
 * users, references to local files (`tokenFile`, certificate paths) and `proxy-url` (through a proxy the outbound
 * policy could not be applied). Messages never quote credential values.
 */
export function checkKubeconfig(yaml: string): void {
  // KubeconfigError is an InputError already (400), its message naming the context, entry and field.
  const config = parseKubeconfig(yaml, { trusted: false });
  if (config.proxyUrl) {
    throw new KubeconfigError(
      `${config.origin} sets proxy-url, which registered clusters do not support (svc connects to the server ` +
        'itself, to apply its outbound address policy)',
    );
  }
}

/**
 * The server a dry run reaches when the caller names none: the kubeconfig's, else the in-cluster one. Throws
 * InputError (a kubeconfig that does not parse, or no in-cluster environment).
 */
export function defaultServerOf(kubeconfig: string | undefined, options: AccessOptions): string {
  const config =
    kubeconfig === undefined
      ? clusterConfig({ inCluster: options.inCluster ?? true })
      : parseKubeconfig(kubeconfig, { trusted: false });
  return config.server.toString();
}

/**
 * A connection to the registered cluster `access` describes. Nothing is contacted yet; throws InputError when the
 * settings cannot be used (a kubeconfig that no longer passes `checkKubeconfig`, an address the policy refuses) and
 * KubeconfigError for in-cluster credentials that are missing (svc does not run in a Pod).
 */
export function connectCluster(access: ClusterAccess, options: AccessOptions): KubeConnection {
  checkServerURL(access.serverURL, options.outbound);
  const lookup = guardedLookup(options.outbound.scope);
  if (access.kubeconfig === undefined) {
    return connect({ inCluster: options.inCluster ?? true, server: access.serverURL, lookup });
  }
  checkKubeconfig(access.kubeconfig);
  return connect({ kubeconfigYaml: access.kubeconfig, server: access.serverURL, lookup });
}
