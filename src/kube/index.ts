/** Kubernetes access: connection factory, REST client, errors, discovery, objects, informers, leader election. */
export { KubeClient, type RequestOptions } from './client.ts';
export { type ConnectSource, clusterConfig, connect, type KubeConnection, managementSource } from './connect.ts';
export { TokenFile } from './credentials.ts';
export { apiPrefix, Discovery, type ResourceInfo, type ServerCapabilities } from './discovery.ts';
export {
  CredentialError,
  hintOf,
  isConflict,
  isNotFound,
  isUnreachable,
  KubeApiError,
  KubeconfigError,
  toSvcError,
} from './errors.ts';
export { eventTime, type KubeEvent, listEvents } from './events.ts';
export { type InClusterOptions, inClusterConfig, SERVICE_ACCOUNT_DIR } from './in-cluster.ts';
export {
  cacheKey,
  Informer,
  type InformerEvent,
  type InformerHandlers,
  type InformerObject,
  type InformerOptions,
  type InformerStore,
  MapStore,
  withoutManagedFields,
} from './informer.ts';
export { type ClusterConfig, type KubeconfigOptions, loadKubeconfigFile, parseKubeconfig } from './kubeconfig.ts';
export { type LeaderElectionOptions, LeaderElector, microTime } from './leader.ts';
export { MutationCache, type MutationCacheOptions, type VersionOrder } from './mutation-cache.ts';
export { createUnlessExists, ensureNamespace } from './namespaces.ts';
export { type AnyObject, FIELD_MANAGER, ObjectClient, type ObjectRef, objectRef } from './objects.ts';
export { compareVersions } from './resource-version.ts';
export { reviewToken, type TokenReviewResult } from './token-review.ts';
