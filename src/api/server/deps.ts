/** What `buildApiServer` is given. */
import type { Config } from '../../config.ts';
import type { InClusterOptions } from '../../kube/index.ts';
import type { Logger } from '../../log.ts';
import type { Store } from '../../store/database.ts';
import type { ApiRoutes } from '../api.ts';
import type { StreamOptions } from '../routes/app-stream.ts';
import type { SecretStoreTuning } from '../secret-stores/tuning.ts';

export interface ApiServerDeps {
  config: Config;
  logger: Logger;
  /** An open store to use (closed with the server); by default the one `config.database` names. */
  store?: Store;
  /** In-cluster credential overrides for clusters registered without a kubeconfig (tests); default the Pod's. */
  inCluster?: InClusterOptions;
  /** How often expired shell pods are removed (default 60 s). */
  shellSweepMs?: number;
  /** Secret-store timeouts and rate limits (tests shorten them); by default DEFAULT_SECRET_STORE_TUNING. */
  secretStores?: Partial<SecretStoreTuning>;
  /** The built web UI to serve (default web/dist of this checkout). */
  webDist?: string;
  /** Timing of GET /apps/stream (heartbeat, re-authentication); tests shorten it. */
  stream?: Partial<StreamOptions>;
  /**
   * More route groups under /api/v1, registered after the API's own with the same authentication and errors: the
   * MCP endpoint (src/server.ts), which builds on the API's services and so is not imported by the API.
   */
  routes?: ApiRoutes[];
  /**
   * Tests: check every JSON answer against its response schema before it is serialized, failing the request when a
   * field would be dropped or is missing (./answer-check.ts).
   */
  checkAnswers?: boolean;
}
