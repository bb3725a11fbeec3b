/** Kubernetes access: REST client, discovery, object operations, leader election. */
export { isConflict, isNotFound, KubeApiError, KubeClient, type RequestOptions } from './client.ts';
export { apiPrefix, Discovery, type ResourceInfo } from './discovery.ts';
export { cacheKey, Informer, type InformerHandlers, type InformerObject } from './informer.ts';
export { type LeaderElectionOptions, LeaderElector, microTime } from './leader.ts';
export { type AnyObject, FIELD_MANAGER, ObjectClient, type ObjectRef } from './objects.ts';
export { reviewToken, type TokenReviewResult } from './token-review.ts';
