/** The cluster record as the API answers it (contract §2.6, plus credentials, status_message and updated_at). */
import type { Static } from 'typebox';
import type { ClusterRecord } from '../../store/clusters.ts';
import type { Cluster } from './contract.ts';

/** The JSON of one cluster. Never carries the kubeconfig: only whether one is stored. */
export function clusterJson(r: ClusterRecord): Static<typeof Cluster> {
  return {
    id: r.id,
    name: r.name,
    server_url: r.serverURL,
    namespace: r.namespaces.join(','),
    labels: r.labels,
    credentials: r.kubeconfig === null ? ('in-cluster' as const) : ('kubeconfig' as const),
    status: r.status,
    status_message: r.statusMessage,
    version: r.version,
    provider: r.provider,
    region: r.region,
    node_count: r.nodeCount,
    cpu_usage: r.cpuUsage,
    memory_usage: r.memoryUsage,
    deployment_count: r.deploymentCount,
    healthy_deployments: r.healthyDeployments,
    last_seen: r.lastSeen,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

export type ClusterJson = Static<typeof Cluster>;
