/**
 * The read use-cases that follow what the operator records (contract §4.2 rules 3–4): status, optionally waiting
 * for a terminal state of the App state module; events of the App and its workloads; the applied-revision history.
 * All need `deployment:read` on the App.
 */

import { APP_KIND, type AppResource } from '../../core/app-schema.ts';
import { isWaitTerminal } from '../../core/app-state.ts';
import { parseDuration } from '../../core/duration.ts';
import { describeError, InputError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { eventTime, type KubeEvent, listEvents } from '../../kube/index.ts';
import type { Logger } from '../../log.ts';
import type { Actor } from '../actor.ts';
import type { ApiServices } from '../services.ts';
import { AppAccess } from './access.ts';
import type { AppRef } from './scope.ts';

/** Longest status wait (contract §8). */
export const STATUS_WAIT_MAX_MS = 120_000;

/** A `wait` duration (`30s`, `2m`) as milliseconds, capped at 120 s; 0 without one; InputError when malformed. */
export function waitMsOf(wait: string | undefined): number {
  if (wait === undefined || wait === '') return 0;
  const parsed = parseDuration(wait);
  if (parsed === undefined) throw new InputError('wait must be a duration such as 30s or 2m');
  return Math.min(parsed, STATUS_WAIT_MAX_MS);
}

/** Most events returned (contract §8). */
export const EVENTS_MAX = 50;

/** One row of the events view (contract §4.2 rule 4). */
export interface AppEvent {
  at: string;
  type: string;
  object: string;
  reason: string;
  message: string;
  source: 'app' | 'workload';
}

function eventRow(e: KubeEvent, source: AppEvent['source']): AppEvent {
  return {
    at: eventTime(e),
    type: e.type ?? 'Normal',
    object: `${e.involvedObject.kind ?? ''}/${e.involvedObject.name ?? ''}`,
    reason: e.reason ?? '',
    message: e.message ?? '',
    source,
  };
}

/** Status, events and history of an App. */
export class AppStatusService {
  readonly #access: AppAccess;
  readonly #services: ApiServices;
  readonly #logger: Logger | undefined;

  constructor(services: ApiServices, logger?: Logger) {
    this.#access = new AppAccess(services);
    this.#services = services;
    this.#logger = logger;
  }

  /**
   * The App, once it is terminal (`isWaitTerminal`), or as it is when `waitMs` passed or `signal` aborted; at once
   * with `waitMs` 0. The App is followed through the API's App cache (no watch per request), not polled.
   */
  async status(actor: Actor, ref: AppRef, waitMs: number, signal: AbortSignal): Promise<AppResource> {
    const app = await this.#access.load(actor, ref, 'deployment:read');
    if (waitMs === 0 || isWaitTerminal(app)) return app;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), waitMs);
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const ns = orgNamespace(actor.org.slug);
      const last = await this.#access.kube().watchUntil(ns, app.metadata.name, isWaitTerminal, controller.signal);
      return last ?? app;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Events about the App (org namespace) and its workloads (destination namespace: objects named in
   * `status.resources` or extending those names), newest first, at most EVENTS_MAX.
   */
  async events(actor: Actor, ref: AppRef): Promise<AppEvent[]> {
    const app = await this.#access.load(actor, ref, 'deployment:read');
    const kube = this.#access.kube();
    const name = app.metadata.name;
    const appEvents = await kube.events(
      orgNamespace(actor.org.slug),
      (e) => e.involvedObject.kind === APP_KIND && e.involvedObject.name === name,
    );
    const names = (app.status?.resources ?? []).map((r) => r.name);
    const ofWorkloads = (e: KubeEvent) => {
      const involved = e.involvedObject.name ?? '';
      return names.some((n) => involved === n || involved.startsWith(`${n}-`));
    };
    const workloadEvents = names.length > 0 ? await this.#workloadEvents(actor, app, ofWorkloads) : [];
    return [...appEvents.map((e) => eventRow(e, 'app')), ...workloadEvents.map((e) => eventRow(e, 'workload'))]
      .sort((a, b) => b.at.localeCompare(a.at))
      .slice(0, EVENTS_MAX);
  }

  /**
   * Events of the App's workloads, read where they run: the management cluster, or the registered cluster of its
   * destination. A remote cluster that cannot be read leaves its events out (the App's own still answer); a
   * cluster no longer registered contributes none.
   */
  async #workloadEvents(actor: Actor, app: AppResource, filter: (e: KubeEvent) => boolean): Promise<KubeEvent[]> {
    const { cluster = '', namespace } = app.spec.destination;
    if (cluster === '') return this.#access.kube().events(namespace, filter);
    try {
      const { client } = await this.#services.clusters.connectionOf(actor.org.id, cluster);
      return (await listEvents(client, namespace)).filter(filter);
    } catch (err) {
      this.#logger?.warn({ cluster, err: describeError(err) }, 'events of a remote destination could not be read');
      return [];
    }
  }

  /** The App's applied revisions, newest first; for image Apps also the tag and image each digest came from. */
  async history(actor: Actor, ref: AppRef) {
    const app = await this.#access.load(actor, ref, 'deployment:read');
    return {
      name: app.metadata.name,
      revision: app.status?.revision ?? '',
      previous_revisions: app.status?.previousRevisions ?? [],
      last_sync_at: app.status?.lastSyncAt ?? null,
      revision_tags: app.status?.revisionTags ?? [],
    };
  }
}
