/**
 * The push receiver (`--webhook-bind-address`, default :8082). `POST /webhook/gitA` (GitHub push) and
 * `POST /webhook/gitB` (GitLab push): parse, match (contract §4.6) against the controller's App informer cache
 * (a LIST only before its first list), verify the delivery against the App's `spec.webhook.secretRef` Secret (key
 * `secret`) when it names one, and merge-patch `spec.operation` {kind Sync, initiatedAt now, triggeredBy
 * webhook:<provider>} on each match, up to PATCH_CONCURRENCY Apps at a time, and audits each operation it wrote as
 * `app.sync` (user_id empty) through the server channel, best effort. AppSets whose Git generators read the pushed
 * branch and whose template opts in to push events are verified the same way (the template's secretRef) and run
 * again at once (../appsets/push-match.ts). Answers `{matched: N}`, Apps and AppSets counted.
 * Beyond the contract: per-address rate limit (429), malformed bodies 400, bodies over 1 MiB 413.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { APP_API_VERSION, APP_KIND } from '../../core/app-names.ts';
import type { AppResource } from '../../core/app-schema.ts';
import { writeOperation } from '../../core/app-state.ts';
import type { AppSetResource } from '../../core/appset-schema.ts';
import { mapLimit } from '../../core/concurrency.ts';
import { ConflictError, describeError, NotFoundError } from '../../core/errors.ts';
import type { ObjectClient } from '../../kube/index.ts';
import { RateLimiter } from '../../net/rate-limit.ts';
import { appSetMatchesPush, appSetPushSecret } from '../appsets/push-match.ts';
import type { AuditRelay } from '../channel/audit-relay.ts';
import { appOperationIO } from '../operation-io.ts';
import { matchesPush, type Provider, type PushEvent, parsePush, verifyDelivery } from './push.ts';

const MAX_BODY = 1024 * 1024;
/** Matched Apps verified and patched at once: a push to a shared repository must not take one round trip per App. */
const PATCH_CONCURRENCY = 16;

/** Dependencies and limits of the push receiver. */
export interface ReceiverOptions {
  mgmt: ObjectClient;
  logger: Logger;
  /** Requests per source address: burst, and refill per minute (defaults 20 and 60). */
  rateLimit?: { burst: number; perMinute: number };
  /** Match only Apps in this namespace (default: all namespaces). */
  namespace?: string;
  /** The Apps known to the controller's informer (same namespace scope), undefined until it has listed. */
  cachedApps?: () => AppResource[] | undefined;
  /** Where requested syncs are audited (contract §6.4); without it they are not. */
  audit?: AuditRelay;
  /** The AppSet controller: its cached AppSets, and how to run one again after a push (absent: AppSets ignored). */
  appSets?: { appSets(): AppSetResource[] | undefined; refresh(key: string): void };
}

/** Handles push deliveries; `handle` is the node:http request listener. */
export class PushReceiver {
  readonly #options: ReceiverOptions;
  readonly #limiter: RateLimiter;

  constructor(options: ReceiverOptions) {
    this.#options = options;
    this.#limiter = new RateLimiter(options.rateLimit ?? { burst: 20, perMinute: 60 });
  }

  /** A node:http server serving the receiver. */
  server(): Server {
    return createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.#options.logger.error({ err: describeError(err) }, 'push receiver failed');
        if (!res.headersSent) send(res, 500, { error: 'internal error' });
      });
    });
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const provider: Provider | undefined =
      path === '/webhook/gitA' ? 'gitA' : path === '/webhook/gitB' ? 'gitB' : undefined;
    if (!provider) return send(res, 404, { error: 'not found' });
    if (req.method !== 'POST') return send(res, 405, { error: 'method not allowed' });
    if (!this.#limiter.take(req.socket.remoteAddress ?? 'unknown'))
      return send(res, 429, { error: 'too many requests' });
    const raw = await readBody(req);
    if (!raw) {
      res.setHeader('Connection', 'close');
      res.on('finish', () => req.destroy());
      return send(res, 413, { error: 'body too large' });
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return send(res, 400, { error: 'body is not JSON' });
    }
    const push = parsePush(provider, body);
    if (!push) return send(res, 400, { error: 'not a push event' });
    const header = provider === 'gitA' ? req.headers['x-hub-signature-256'] : req.headers['x-gitlab-token'];
    const matched = await this.#dispatch(provider, push, raw, typeof header === 'string' ? header : undefined);
    send(res, 200, { matched });
  }

  async #dispatch(provider: Provider, push: ReturnType<typeof parsePush> & object, raw: Buffer, header?: string) {
    const apps =
      this.#options.cachedApps?.() ??
      ((await this.#options.mgmt.list(
        APP_API_VERSION,
        APP_KIND,
        '',
        this.#options.namespace,
      )) as unknown as AppResource[]);
    const candidates = apps.filter((app) => matchesPush(app, push));
    const results = await mapLimit(candidates, PATCH_CONCURRENCY, (app) =>
      this.#trigger(provider, push, app, raw, header),
    );
    const refreshed = await this.#refreshAppSets(provider, push, raw, header);
    const matched = results.filter(Boolean).length + refreshed;
    this.#options.logger.info({ provider, ref: push.ref, after: push.after, matched, refreshed }, 'push received');
    return matched;
  }

  /** Runs again each AppSet the push concerns and verifies for; how many. */
  async #refreshAppSets(provider: Provider, push: PushEvent, raw: Buffer, header?: string): Promise<number> {
    const controller = this.#options.appSets;
    const sets = (controller?.appSets() ?? []).filter(
      (set) =>
        appSetMatchesPush(set, push) &&
        (!this.#options.namespace || set.metadata.namespace === this.#options.namespace),
    );
    let refreshed = 0;
    for (const set of sets) {
      const namespace = set.metadata.namespace ?? '';
      if (!(await this.#verified(provider, namespace, appSetPushSecret(set), raw, header))) {
        this.#options.logger.warn({ appSet: set.metadata.name, namespace, provider }, 'push signature rejected');
        continue;
      }
      controller?.refresh(`${namespace}/${set.metadata.name}`);
      refreshed++;
    }
    return refreshed;
  }

  /** Whether a delivery passes the check its receiver names: none, a Secret's, or (unverifiable) never. */
  async #verified(
    provider: Provider,
    namespace: string,
    check: { name?: string; unverifiable: boolean },
    raw: Buffer,
    header?: string,
  ): Promise<boolean> {
    if (check.unverifiable) return false;
    if (check.name === undefined) return true;
    const secret = await this.#secret(namespace, check.name);
    return secret !== undefined && verifyDelivery(provider, secret, raw, header);
  }

  /** Verifies the delivery for one matching App and requests a Sync. True when the App counts as matched. */
  async #trigger(
    provider: Provider,
    push: PushEvent,
    app: AppResource,
    raw: Buffer,
    header?: string,
  ): Promise<boolean> {
    const secretRef = app.spec.webhook?.secretRef;
    const check = secretRef ? { name: secretRef, unverifiable: false } : { unverifiable: false };
    if (!(await this.#verified(provider, app.metadata.namespace ?? '', check, raw, header))) {
      this.#options.logger.warn(
        { app: app.metadata.name, namespace: app.metadata.namespace, provider },
        'push signature rejected',
      );
      return false;
    }
    // Written like the API writes operations (app-state.ts): guarded by resourceVersion, retried on a fresh read
    // while the App still matches the push. One pending operation per App: a pending one (which syncs anyway, or
    // is more specific) is not replaced, and the App still counts as matched.
    const triggeredBy = `webhook:${provider}`;
    let operationId: string;
    try {
      operationId = await writeOperation(
        appOperationIO(this.#options.mgmt, app),
        app,
        { kind: 'Sync', triggeredBy },
        { stillValid: (_read, fresh) => matchesPush(fresh, push) },
      );
    } catch (err) {
      // Deleted meanwhile: not matched. A pending operation (or a race lost to one): matched, not replaced.
      if (err instanceof NotFoundError) return false;
      if (!(err instanceof ConflictError)) throw err;
      return true;
    }
    // Only an operation this delivery wrote is audited (contract §6.4): the caller is the push, not a user.
    this.#options.audit?.record({
      orgNamespace: app.metadata.namespace ?? '',
      action: 'app.sync',
      resourceType: 'app',
      ...(app.metadata.uid ? { resourceId: app.metadata.uid } : {}),
      resourceName: app.metadata.name,
      details: {
        triggeredBy,
        operation_id: operationId,
        namespace: app.spec.destination.namespace,
        cluster: app.spec.destination.cluster ?? '',
      },
    });
    return true;
  }

  async #secret(namespace: string, name: string): Promise<string | undefined> {
    const s = await this.#options.mgmt
      .get({ apiVersion: 'v1', kind: 'Secret', name, namespace })
      .catch(() => undefined);
    const b64 = (s?.['data'] as Record<string, string> | undefined)?.['secret'];
    return b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/** The body, or undefined when it exceeds 1 MiB. */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_BODY) {
        // Stop collecting; the caller answers 413 and closes the connection.
        parts.length = 0;
        resolve(undefined);
        return;
      }
      parts.push(b);
    });
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}
