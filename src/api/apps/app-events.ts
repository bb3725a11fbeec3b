/**
 * The fan-out behind `GET /apps/stream`: ONE subscription to the API's App cache (the Informer's `subscribe`, via
 * KubeApps), each change serialized once into a server-sent-event frame, then written to every connected client
 * that may see it (its org's namespace, `deployment:read` on the App's deployment scope, decided per client with
 * `canI`). No Kubernetes watch per client, no per-client serialization.
 *
 * Event ids are App resourceVersions. Kubernetes orders them for objects of one resource (src/kube/resource-version.ts),
 * and every server replica watches the same Apps, so an id means the same point on every replica. A reconnecting
 * client sends its last id (`Last-Event-ID`, or `?since=` for the first connection, from a list page's
 * `resource_version`) and gets the changes after it from a bounded buffer:
 * - the id is in this replica's buffer: everything sent after it (exact, whatever the order of arrival);
 * - else, the id is at or above the buffer's floor (every change newer than the floor is buffered): every buffered
 *   change with a greater resourceVersion (a client coming from another replica);
 * - else (too old, unknown, malformed): a `reset` event, and the client reloads its list.
 * The cache's own writes and re-lists can deliver a change whose resourceVersion is not above the last one sent
 * (a write answer overtaken by the watch, a deletion found by a re-list); such a change gets the id
 * `<last>~<n>` (unique on this replica) and raises the floor, so only a position lookup can resume across it.
 */
import type { AppResource } from '../../core/app-schema.ts';
import type { InformerEvent } from '../../kube/index.ts';
import { compareVersions } from '../../kube/resource-version.ts';
import type { AppEntry } from '../kube/app-store.ts';
import { scopeOfApp } from './scope.ts';

/** What the hub needs of the App cache (KubeApps). */
export interface AppEventSource {
  subscribe(listener: (event: InformerEvent<AppResource>) => void): () => void;
  entryOf(app: AppResource): AppEntry;
  /** The newest resourceVersion the cache has seen. */
  readonly version: string | undefined;
  /** True once the cache has its first full list. */
  readonly synced: boolean;
}

/** One connected client. */
export interface StreamClient {
  /** The org namespace (`org-<slug>`) whose Apps it may see. */
  namespace: string;
  /** Whether it may read Apps of a deployment scope (`canI … deployment:read`); may be replaced while connected. */
  may: (scope: string) => boolean;
  /** Writes a frame; false when the client cannot keep up (it is then dropped by the caller). */
  write: (frame: string) => boolean;
  /** Ends the connection (a client too slow to follow). */
  close: () => void;
}

/** One buffered change. */
interface Change {
  id: string;
  /** The resourceVersion ordering the change (the id without its `~n` suffix). */
  rv: string;
  namespace: string;
  scope: string;
  /** The scope the App had before, when it changed (a client that lost sight of the App gets a delete). */
  oldScope: string | undefined;
  frame: string;
  /** The same App as a deletion, for clients that could read it before this change but not after. */
  goneFrame: string;
}

/** Default number of buffered changes (about 1 KiB each). */
export const STREAM_BUFFER_DEFAULT = 5000;

const ID = /^([1-9][0-9]*)(~[0-9]+)?$/;

function frameOf(id: string, type: 'upsert' | 'delete', json: Buffer): string {
  return `id: ${id}\nevent: app\ndata: {"type":"${type}","app":${json.toString('utf8')}}\n\n`;
}

/** A frame without an id (control events: ready, reset). */
export function controlFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The App-change fan-out of one server. */
export class AppEventHub {
  readonly #source: AppEventSource;
  readonly #capacity: number;
  readonly #clients = new Set<StreamClient>();
  #buffer: Change[] = [];
  /** Every change with a resourceVersion above the floor is in the buffer; undefined = nothing is resumable yet. */
  #floor: string | undefined;
  #last: string | undefined;
  #seq = 0;
  #unsubscribe: (() => void) | undefined;

  constructor(source: AppEventSource, options: { capacity?: number } = {}) {
    this.#source = source;
    this.#capacity = options.capacity ?? STREAM_BUFFER_DEFAULT;
  }

  /** Number of connected clients. */
  get clients(): number {
    return this.#clients.size;
  }

  /** Subscribes to the App cache (once). */
  start(): void {
    this.#unsubscribe ??= this.#source.subscribe((event) => this.#publish(event));
  }

  /** Unsubscribes and ends every client. */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    for (const client of this.#clients) client.close();
    this.#clients.clear();
  }

  /**
   * Connects a client: replays what it missed after `since` (see the module comment), or writes a `reset` event
   * when that cannot be done exactly, then a `ready` event carrying the version it is now current with. From then
   * on every change it may see is written to it until `disconnect`. Synchronous, so no change falls in between.
   */
  connect(client: StreamClient, since: string | undefined): void {
    this.#settle();
    if (since !== undefined && since !== '') {
      const replay = this.#replay(since);
      if (replay) {
        for (const change of replay) this.#deliver(client, change);
      } else {
        client.write(controlFrame('reset', { reason: 'the changes since this event id are no longer known' }));
      }
    }
    this.#clients.add(client);
    client.write(controlFrame('ready', { resource_version: this.#last ?? this.#source.version ?? '' }));
  }

  /** Stops writing to a client. */
  disconnect(client: StreamClient): void {
    this.#clients.delete(client);
  }

  /** The buffered changes after `since`, or undefined when they are not exactly known. */
  #replay(since: string): Change[] | undefined {
    const match = ID.exec(since);
    if (!match) return undefined;
    for (let i = this.#buffer.length - 1; i >= 0; i--) {
      if (this.#buffer[i]?.id === since) return this.#buffer.slice(i + 1);
    }
    const rv = match[1] as string;
    if (match[2] || this.#floor === undefined || (compareVersions(rv, this.#floor) ?? -1) < 0) return undefined;
    return this.#buffer.filter((c) => compareVersions(c.rv, rv) === 1);
  }

  /** Once the cache has synced, the changes from then on are buffered: the floor is where it stood. */
  #settle(): void {
    if (this.#floor !== undefined || !this.#source.synced) return;
    this.#floor = this.#source.version ?? '0';
    this.#last ??= this.#floor;
  }

  #publish(event: InformerEvent<AppResource>): void {
    const buffering = this.#floor !== undefined || this.#source.synced;
    this.#settle();
    const app = event.obj;
    const rv = app.metadata.resourceVersion ?? '';
    let id = rv;
    const order = compareVersions(rv, this.#last);
    if (order === 1 || this.#last === undefined) {
      this.#last = rv;
    } else {
      // Not newer than what was sent already: unique id on this replica, and no resume by version across it.
      id = `${this.#last}~${++this.#seq}`;
      this.#floor = this.#last;
    }
    const entry = this.#source.entryOf(app);
    const type = event.type;
    const change: Change = {
      id,
      rv: ID.exec(id)?.[1] ?? rv,
      namespace: app.metadata.namespace ?? '',
      scope: scopeOfApp(app),
      oldScope: event.type === 'upsert' && event.old ? scopeOfApp(event.old) : undefined,
      frame: frameOf(id, type, entry.json),
      goneFrame: type === 'delete' ? '' : frameOf(id, 'delete', entry.json),
    };
    if (buffering) {
      this.#buffer.push(change);
      if (this.#buffer.length > this.#capacity) {
        const dropped = this.#buffer.splice(0, this.#buffer.length - this.#capacity);
        const newest = dropped[dropped.length - 1];
        if (newest && (compareVersions(newest.rv, this.#floor) ?? 1) > 0) this.#floor = newest.rv;
      }
    }
    for (const client of this.#clients) this.#deliver(client, change);
  }

  /** Writes `change` to `client` if it may see it (as a delete if it just lost sight of the App). */
  #deliver(client: StreamClient, change: Change): void {
    if (client.namespace !== change.namespace) return;
    let frame: string | undefined;
    if (client.may(change.scope)) frame = change.frame;
    else if (change.oldScope !== undefined && change.oldScope !== change.scope && client.may(change.oldScope)) {
      frame = change.goneFrame;
    }
    if (frame === undefined) return;
    if (!client.write(frame)) {
      this.#clients.delete(client);
      client.close();
    }
  }
}
