/**
 * The live probe of a registered cluster (GET /clusters, contract §2.6 and §3): its version, provider and region
 * from node labels and provider ids, node count, and CPU and memory use as whole percent of the nodes' allocatable
 * capacity, counted from the requests of the Pods scheduled there (what the scheduler reserves; no metrics server
 * needed). Also the namespace list of GET /clusters/{name}/namespaces and POST /clusters/test.
 *
 * A probe fails (the cluster is disconnected) when the server cannot be reached or refuses the credentials (401).
 * Credentials that may not list nodes or pods (403) still connect; the counts they cannot see stay undefined.
 */
import { KubeApiError, type KubeClient } from '../kube/index.ts';
import { parseQuantity } from './quantity.ts';

/** What a successful probe found. */
export interface ClusterProbe {
  version: string;
  provider?: string;
  region?: string;
  nodeCount?: number;
  cpuUsage?: number;
  memoryUsage?: number;
}

interface NodeLike {
  metadata?: { labels?: Record<string, string> };
  spec?: { providerID?: string };
  status?: { allocatable?: Record<string, string> };
}

interface ContainerLike {
  resources?: { requests?: Record<string, string> };
}

interface PodLike {
  spec?: {
    nodeName?: string;
    containers?: ContainerLike[];
    initContainers?: ContainerLike[];
    overhead?: Record<string, string>;
  };
}

/** Provider names from the scheme of `spec.providerID` (`aws:///eu-west-1a/i-…`). */
const PROVIDER_BY_SCHEME: Record<string, string> = { gce: 'gcp' };

/** Provider names from node labels only a provider sets, when no providerID says it. */
const PROVIDER_BY_LABEL: [string, string | undefined, string][] = [
  ['eks.amazonaws.com/nodegroup', undefined, 'aws'],
  ['cloud.google.com/gke-nodepool', undefined, 'gcp'],
  ['kubernetes.azure.com/cluster', undefined, 'azure'],
  ['node.kubernetes.io/instance-type', 'k3s', 'k3s'],
  ['type', 'kwok', 'kwok'],
];

const REGION_LABELS = ['topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/region'];

/** Pods listed per page (a large cluster is read in pages, never in one answer). */
const PAGE = 500;

/** The provider of a set of nodes: from the first providerID, else from provider-specific labels; '' if unknown. */
export function providerOf(nodes: readonly NodeLike[]): string {
  for (const node of nodes) {
    const scheme = /^([a-z0-9-]+):\/\//i.exec(node.spec?.providerID ?? '')?.[1]?.toLowerCase();
    if (scheme) return PROVIDER_BY_SCHEME[scheme] ?? scheme;
  }
  for (const node of nodes) {
    const labels = node.metadata?.labels ?? {};
    for (const [label, value, provider] of PROVIDER_BY_LABEL) {
      if (label in labels && (value === undefined || labels[label] === value)) return provider;
    }
  }
  return '';
}

/** The region of the first node carrying a region label; '' if none does. */
export function regionOf(nodes: readonly NodeLike[]): string {
  for (const node of nodes) {
    for (const label of REGION_LABELS) {
      const region = node.metadata?.labels?.[label];
      if (region) return region;
    }
  }
  return '';
}

/**
 * What a Pod reserves of `resource` (as the scheduler counts it): the larger of its containers' summed requests
 * and its largest init container's, plus its overhead.
 */
export function podRequest(pod: PodLike, resource: string): number {
  const of = (c: ContainerLike) => parseQuantity(c.resources?.requests?.[resource]);
  const main = (pod.spec?.containers ?? []).reduce((sum, c) => sum + of(c), 0);
  const init = Math.max(0, ...(pod.spec?.initContainers ?? []).map(of));
  return Math.max(main, init) + parseQuantity(pod.spec?.overhead?.[resource]);
}

/** Whole-percent use of `resource`: scheduled Pods' requests over the nodes' allocatable (0 with no capacity). */
export function usagePercent(nodes: readonly NodeLike[], pods: readonly PodLike[], resource: string): number {
  const capacity = nodes.reduce((sum, n) => sum + parseQuantity(n.status?.allocatable?.[resource]), 0);
  if (capacity <= 0) return 0;
  const used = pods.filter((p) => p.spec?.nodeName).reduce((sum, p) => sum + podRequest(p, resource), 0);
  return Math.round((100 * used) / capacity);
}

/** Undefined when the credentials may not read it (403); other failures are thrown. */
async function unlessForbidden<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 403) return undefined;
    throw err;
  }
}

async function listAll<T>(client: KubeClient, path: string, query: Record<string, string>, timeoutMs: number) {
  const items: T[] = [];
  let token: string | undefined;
  do {
    const page = await client.request<{ items?: T[]; metadata?: { continue?: string } }>(path, {
      query: { ...query, limit: PAGE, ...(token ? { continue: token } : {}) },
      timeoutMs,
    });
    items.push(...(page.items ?? []));
    token = page.metadata?.continue || undefined;
  } while (token);
  return items;
}

/** The server's version (`gitVersion`); the first call of every probe, so it fails fast. Throws KubeApiError. */
export async function clusterVersion(client: KubeClient, timeoutMs: number): Promise<string> {
  return (await client.request<{ gitVersion?: string }>('/version', { timeoutMs })).gitVersion ?? '';
}

/** Probes the cluster behind `client`; each request may stay silent for at most `timeoutMs`. Throws KubeApiError. */
export async function probeCluster(client: KubeClient, timeoutMs: number): Promise<ClusterProbe> {
  const version = await clusterVersion(client, timeoutMs);
  const [nodes, pods] = await Promise.all([
    unlessForbidden(listAll<NodeLike>(client, '/api/v1/nodes', {}, timeoutMs)),
    unlessForbidden(
      listAll<PodLike>(
        client,
        '/api/v1/pods',
        { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' },
        timeoutMs,
      ),
    ),
  ]);
  const probe: ClusterProbe = { version };
  if (nodes) {
    Object.assign(probe, { provider: providerOf(nodes), region: regionOf(nodes), nodeCount: nodes.length });
    if (pods) {
      probe.cpuUsage = usagePercent(nodes, pods, 'cpu');
      probe.memoryUsage = usagePercent(nodes, pods, 'memory');
    }
  }
  return probe;
}

/**
 * The names of the namespaces the credentials may list; undefined when they may not (403). Throws KubeApiError for
 * other failures.
 */
export async function listNamespaces(client: KubeClient, timeoutMs: number): Promise<string[] | undefined> {
  const items = await unlessForbidden(
    listAll<{ metadata?: { name?: string } }>(client, '/api/v1/namespaces', {}, timeoutMs),
  );
  return items?.map((n) => n.metadata?.name ?? '').filter((n) => n !== '');
}
