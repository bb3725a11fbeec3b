/** Who a bearer token belongs to, as the apiserver says (a TokenReview, authentication.k8s.io/v1). */
import type { KubeClient } from './client.ts';

/** The apiserver's verdict on a token: `username` is set when it authenticated. */
export interface TokenReviewResult {
  authenticated: boolean;
  username?: string;
}

interface TokenReviewStatus {
  status?: { authenticated?: boolean; user?: { username?: string } };
}

/**
 * Asks the apiserver `client` talks to who `token` belongs to (the default audiences, i.e. the apiserver's own, as
 * a Pod's ServiceAccount token carries). The client needs `create` on `tokenreviews` (the ClusterRole
 * system:auth-delegator). Throws KubeApiError when the apiserver cannot answer.
 */
export async function reviewToken(client: KubeClient, token: string): Promise<TokenReviewResult> {
  const review = await client.request<TokenReviewStatus>('/apis/authentication.k8s.io/v1/tokenreviews', {
    method: 'POST',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
  });
  const status = review.status ?? {};
  const username = status.user?.username;
  return status.authenticated === true && username ? { authenticated: true, username } : { authenticated: false };
}
