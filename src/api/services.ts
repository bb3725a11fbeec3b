/** Everything route plugins use, built once per server and passed in explicitly. */
import type { Authenticator } from '../auth/authenticator.ts';
import type { AuthComponent } from '../auth/better-auth.ts';
import type { BackgroundJobs } from '../background/jobs.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { RateLimiter } from '../net/rate-limit.ts';
import type { Sealer } from '../secrets/seal.ts';
import type { ApiKeyStore } from '../store/api-keys.ts';
import type { AuditStore } from '../store/audit.ts';
import type { Store } from '../store/database.ts';
import type { RegistryStore } from '../store/registries.ts';
import type { RepositoryStore } from '../store/repositories.ts';
import type { RoleBindingStore } from '../store/role-bindings.ts';
import type { AppEventHub } from './apps/app-events.ts';
import type { ClusterConnections } from './clusters/connections.ts';
import type { KubeApps } from './kube/apps-repo.ts';
import type { KubeAppSets } from './kube/appsets-repo.ts';
import type { ClusterDirectory } from './kube/clusters.ts';
import type { Destinations } from './kube/destinations.ts';
import type { OrgImages } from './registries/images.ts';
import type { TagPoller } from './registries/tag-poller.ts';
import type { RepositoryAccess } from './repositories/access.ts';

export interface ApiServices {
  config: Config;
  logger: Logger;
  store: Store;
  apiKeys: ApiKeyStore;
  audit: AuditStore;
  bindings: RoleBindingStore;
  authenticator: Authenticator;
  /** Undefined without a management cluster: every /apps route answers 503. */
  kube: KubeApps | undefined;
  /** AppSet resources (issue 27); undefined without a management cluster: every /appsets route answers 503. */
  appSets: KubeAppSets | undefined;
  /** The App-change fan-out of GET /apps/stream; undefined without a management cluster. */
  appEvents: AppEventHub | undefined;
  clusters: ClusterDirectory;
  /** The Kubernetes connection of an App's destination (diff, resource tree, logs). */
  destinations: Destinations;
  /** Seals and opens credentials at rest (config.credentialsKey). */
  sealer: Sealer;
  /** The limits of secret-store tests: one rate limiter per server (contract §8: per user), and their timeout. */
  secretStoreTests: { limiter: RateLimiter; timeoutMs: number };
  /** The auth component (teams live in its organization plugin). */
  auth: AuthComponent;
  /** Webhook deliveries and incident detection of this process. */
  jobs: BackgroundJobs;
  /** Connections to registered clusters (probes, namespaces, events, shells). */
  clusterConnections: ClusterConnections;
  registries: RegistryStore;
  /** The org's Git and Helm repositories and their sealed credentials. */
  repositories: RepositoryStore;
  /** Which credentials reach a source (the operator's over the internal channel, and the server's own renders). */
  sourceAccess: RepositoryAccess;
  /** Image lookups through the org's registries (preview, promote, the tag poller). */
  images: OrgImages;
  /** The tag poller of Follow Apps (undefined without a management cluster: there are no Apps). */
  tagPoller: TagPoller | undefined;
}
