/** Queries and mutations of registered clusters (/clusters: list, get, register, test, namespaces, update, remove). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { del, get, patch, post, seg } from './client.ts';
import type { Cluster } from './types.ts';

/** What POST /clusters and POST /clusters/test take; the kubeconfig is write-only (never answered). */
export interface ClusterInput {
  name?: string;
  server_url?: string;
  kubeconfig?: string | null;
  namespaces?: string[];
}

export interface ClusterTest {
  ok: boolean;
  version?: string;
  namespaces?: string[];
  error?: string;
}

const path = (name: string) => `/api/v1/clusters/${seg(name)}`;

/** Every cluster of the org, each probed live by the server. */
export function useClusters() {
  return useQuery({ queryKey: ['clusters'], queryFn: () => get<{ clusters: Cluster[] }>('/api/v1/clusters') });
}

export function useCluster(name: string) {
  return useQuery({ queryKey: ['clusters', name], queryFn: () => get<{ cluster: Cluster }>(path(name)) });
}

/** The namespaces the cluster has within its allowlist (read live; 502/503 when it cannot be reached). */
export function useClusterNamespaces(name: string) {
  return useQuery({
    queryKey: ['clusters', name, 'namespaces'],
    queryFn: () => get<{ namespaces: string[] }>(`${path(name)}/namespaces`),
    retry: false,
  });
}

/** Tries settings without saving them (always 200: ok or the reason). */
export function useTestCluster() {
  return useMutation({ mutationFn: (input: ClusterInput) => post<ClusterTest>('/api/v1/clusters/test', input) });
}

export function useRegisterCluster() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: ClusterInput) => post<{ cluster: Cluster }>('/api/v1/clusters', input),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['clusters'] }),
  });
}

export function useUpdateCluster(name: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: ClusterInput) => patch<{ cluster: Cluster }>(path(name), input),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['clusters'] }),
  });
}

export function useRemoveCluster(name: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => del<{ deleted: true }>(path(name)),
    // Forget the removed one and the list that held it: the list page then loads afresh, never from the cache.
    onSuccess: () => qc.removeQueries({ queryKey: ['clusters'] }),
  });
}

/** "a, b ,c" → ['a','b','c'] (an empty allowlist = cluster-wide). */
export function parseNamespaces(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}
