/**
 * The one way to reach a Kubernetes API server: from a kubeconfig file (svc's own management kubeconfig), from
 * kubeconfig text (a registered cluster's; untrusted unless said otherwise), or from the in-cluster ServiceAccount.
 * Every caller (operator, API, benchmarks, test harness) gets its client here, so a remote cluster is one more call.
 */
import type { LookupFunction } from 'node:net';
import { KubeClient } from './client.ts';
import { Discovery } from './discovery.ts';
import { KubeconfigError } from './errors.ts';
import { type InClusterOptions, inClusterConfig } from './in-cluster.ts';
import { type ClusterConfig, loadKubeconfigFile, parseKubeconfig } from './kubeconfig.ts';
import { ObjectClient } from './objects.ts';

/** Where the connection settings come from. */
export type ConnectSource =
  | { kubeconfigPath: string; context?: string }
  /**
   * `trusted` allows local file references and exec plugins: only for kubeconfig text svc itself owns. `lookup`
   * resolves the server's host name (e.g. src/net's guarded lookup for a cluster a user registered). `server`
   * replaces the kubeconfig's server URL (a registered cluster's `server_url`).
   */
  | ({ kubeconfigYaml: string; context?: string; trusted?: boolean } & Overrides)
  | ({ inCluster: true | InClusterOptions } & Overrides);

/** Replacements of what the kubeconfig or the Pod's environment says, for clusters registered with svc. */
interface Overrides {
  lookup?: LookupFunction;
  /** An https:// URL used instead of the configured server (CA, TLS server name and credentials stay). */
  server?: string;
}

/** A client with its discovery cache and object operations, all on one API server. */
export interface KubeConnection {
  client: KubeClient;
  discovery: Discovery;
  objects: ObjectClient;
}

/** The settings of `source`; throws KubeconfigError naming what is wrong. Nothing is contacted yet. */
export function clusterConfig(source: ConnectSource): ClusterConfig {
  if ('kubeconfigPath' in source) {
    return loadKubeconfigFile(source.kubeconfigPath, source.context ? { context: source.context } : {});
  }
  const config =
    'kubeconfigYaml' in source
      ? parseKubeconfig(source.kubeconfigYaml, {
          ...(source.context ? { context: source.context } : {}),
          trusted: source.trusted ?? false,
        })
      : inClusterConfig(source.inCluster === true ? {} : source.inCluster);
  return withOverrides(config, source);
}

function withOverrides(config: ClusterConfig, o: Overrides): ClusterConfig {
  let server = config.server;
  if (o.server !== undefined) {
    try {
      server = new URL(o.server);
    } catch {
      throw new KubeconfigError(`server "${o.server}" is not a URL`);
    }
  }
  return { ...config, server, ...(o.lookup ? { lookup: o.lookup } : {}) };
}

/**
 * A connection to the API server `source` names. Throws KubeconfigError when the settings cannot be used; the
 * server itself is first contacted by the first request.
 */
export function connect(source: ConnectSource): KubeConnection {
  const client = new KubeClient(clusterConfig(source));
  const discovery = new Discovery(client);
  return { client, discovery, objects: new ObjectClient(client, discovery) };
}

/** The source of SVC_MGMT_KUBECONFIG's value: `in-cluster` for the Pod's ServiceAccount, else a kubeconfig path. */
export function managementSource(setting: string): ConnectSource {
  return setting === 'in-cluster' ? { inCluster: true } : { kubeconfigPath: setting };
}
