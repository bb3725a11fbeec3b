/** Queries and mutations of registered clusters (/clusters: list, get, register, test, namespaces, update, remove). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { svc } from './client.ts';
import type { RequestBody } from './types.ts';

/** What POST /clusters takes; the kubeconfig is write-only (never answered). */
export type ClusterInput = RequestBody<'/api/v1/clusters', 'post'>;
/** What PATCH /clusters/{name} takes (null kubeconfig: the server's in-cluster credentials). */
export type ClusterChange = RequestBody<'/api/v1/clusters/{name}', 'patch'>;
/** What POST /clusters/test takes. */
export type ClusterTestInput = RequestBody<'/api/v1/clusters/test', 'post'>;

const CLUSTER_PATH = '/api/v1/clusters/{name}';

/** Every cluster of the org, each probed live by the server. */
export function useClusters() {
  return useQuery({ queryKey: ['clusters'], queryFn: () => svc.GET('/api/v1/clusters') });
}

export function useCluster(name: string) {
  return useQuery({
    queryKey: ['clusters', name],
    queryFn: () => svc.GET(CLUSTER_PATH, { params: { path: { name } } }),
  });
}

/** The namespaces the cluster has within its allowlist (read live; 502/503 when it cannot be reached). */
export function useClusterNamespaces(name: string) {
  return useQuery({
    queryKey: ['clusters', name, 'namespaces'],
    queryFn: () => svc.GET(`${CLUSTER_PATH}/namespaces`, { params: { path: { name } } }),
    retry: false,
  });
}

/** Tries settings without saving them (always 200: ok or the reason). */
export function useTestCluster() {
  return useMutation({ mutationFn: (body: ClusterTestInput) => svc.POST('/api/v1/clusters/test', { body }) });
}

export function useRegisterCluster() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ClusterInput) => svc.POST('/api/v1/clusters', { body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['clusters'] }),
  });
}

export function useUpdateCluster(name: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ClusterChange) => svc.PATCH(CLUSTER_PATH, { params: { path: { name } }, body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['clusters'] }),
  });
}

export function useRemoveCluster(name: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => svc.DELETE(CLUSTER_PATH, { params: { path: { name } } }),
    // Forget the removed one and the list that held it: the list page then loads afresh, never from the cache.
    onSuccess: () => qc.removeQueries({ queryKey: ['clusters'] }),
  });
}

/** "a, b ,c" → ['a','b','c'] (an empty allowlist = cluster-wide). */
/** `env=prod, region=eu` as labels (a piece without `=` is left out: the server validates keys and values). */
export function parseLabels(text: string): Record<string, string> {
  const pairs = text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s.indexOf('=') > 0);
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

/** Labels as the form shows them: `env=prod, region=eu`. */
export function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

export function parseNamespaces(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}
