/**
 * Ends expired shells: every server replica sweeps the shell table periodically and removes, on its cluster, what
 * was created for each shell whose expiry passed (the Pod first, then the Secret the attach token is bound to, which
 * invalidates the token), then marks the shell ended. Removal is idempotent, so replicas sweeping together do no harm. A cluster that
 * cannot be reached keeps its shells until a later sweep succeeds; the Pods' `activeDeadlineSeconds` stops them in
 * the meantime.
 */
import type { Logger } from 'pino';
import { removeShell } from '../../clusters/shell.ts';
import { describeError } from '../../core/errors.ts';
import type { KubeConnection } from '../../kube/index.ts';
import type { ClusterShellStore, ShellRecord } from '../../store/cluster-shells.ts';
import type { ClusterStore } from '../../store/clusters.ts';
import type { ClusterConnections } from './connections.ts';

/** How often expired shells are looked for by default. */
export const SHELL_SWEEP_MS = 60_000;

/** Removes everything created for `shell` from its cluster. Throws KubeApiError when the cluster refuses. */
export function removeShellObjects(conn: KubeConnection, shell: ShellRecord): Promise<void> {
  return removeShell(conn, shell.objects);
}

export interface ShellJanitorDeps {
  shells: ClusterShellStore;
  clusters: ClusterStore;
  connections: ClusterConnections;
  logger: Logger;
  intervalMs?: number;
}

export class ShellJanitor {
  readonly #deps: ShellJanitorDeps;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;

  constructor(deps: ShellJanitorDeps) {
    this.#deps = deps;
  }

  /** Sweeps every interval from now on. */
  start(): void {
    this.#timer ??= setInterval(
      () => void this.sweep().catch(() => undefined),
      this.#deps.intervalMs ?? SHELL_SWEEP_MS,
    );
    this.#timer.unref();
  }

  /** Stops sweeping and waits for a sweep in progress. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }

  /**
   * Removes the shells expired at `now` (default: now); resolves with how many ended. One sweep at a time: a call
   * while one runs starts after it.
   */
  sweep(now: Date = new Date()): Promise<number> {
    const next = (this.#running ?? Promise.resolve(0)).catch(() => 0).then(() => this.#sweep(now));
    this.#running = next;
    return next;
  }

  async #sweep(now: Date): Promise<number> {
    let ended = 0;
    for (const shell of await this.#deps.shells.expired(now)) {
      const cluster = await this.#deps.clusters.byId(shell.clusterId);
      try {
        if (cluster) await removeShellObjects(this.#deps.connections.of(cluster), shell);
        await this.#deps.shells.end(shell.id);
        ended++;
      } catch (err) {
        this.#deps.logger.warn(
          { shell: shell.id, cluster: cluster?.name, err: describeError(err) },
          'expired shell could not be removed yet; retrying at the next sweep',
        );
      }
    }
    return ended;
  }
}
