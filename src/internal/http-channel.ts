/**
 * The operator's side of the internal channel when it runs apart from the server (`svc operator`): HTTP calls to
 * the server's `/internal/*` routes, authenticated with the operator's credential — the shared secret
 * SVC_OPERATOR_TOKEN, or else its Kubernetes ServiceAccount token (read again every minute and after a 401, as the
 * Kubernetes client does: the kubelet rotates it), which the server verifies with a TokenReview.
 */
import { existsSync } from 'node:fs';
import type { ChannelConfig } from '../config.ts';
import { NotFoundError, UpstreamError } from '../core/errors.ts';
import { TokenFile } from '../kube/index.ts';
import type { RegistryEndpoint } from '../registry/index.ts';
import { INTERNAL_AUDIT_PATH, INTERNAL_REGISTRY_PATH, type ServerChannel, type SystemAuditEntry } from './channel.ts';

/** How long one call may take before it counts as failed (and may be retried). */
const CALL_TIMEOUT_MS = 10_000;

/** The credential to present: a fixed token, or a token file read per call. */
export type OperatorCredential = { token: string } | { tokenFile: string };

export class HttpServerChannel implements ServerChannel {
  readonly #base: string;
  readonly #token: { get(): Promise<{ token: string }>; invalidate(): void };

  /** `serverURL` is the server's base URL (SVC_SERVER_URL), without `/internal`. */
  constructor(serverURL: string, credential: OperatorCredential) {
    this.#base = `${serverURL.replace(/\/+$/, '')}/internal`;
    this.#token =
      'token' in credential
        ? { get: async () => ({ token: credential.token }), invalidate: () => {} }
        : new TokenFile(credential.tokenFile, 'operator ServiceAccount token');
  }

  async recordAudit(entry: SystemAuditEntry): Promise<void> {
    await this.#post(INTERNAL_AUDIT_PATH, {
      org_namespace: entry.orgNamespace,
      action: entry.action,
      resource_type: entry.resourceType,
      ...(entry.resourceId ? { resource_id: entry.resourceId } : {}),
      resource_name: entry.resourceName,
      details: entry.details,
    });
  }

  /**
   * The registry from `GET /internal/registries/<org namespace>/<name>`: `{host, insecure, ca?, username?,
   * password?}`. NotFoundError (retry hint `wait`) when the server has no such registry.
   */
  async registry(orgNamespace: string, name: string): Promise<RegistryEndpoint> {
    const path = `${INTERNAL_REGISTRY_PATH}/${encodeURIComponent(orgNamespace)}/${encodeURIComponent(name)}`;
    const body = (await this.#call('GET', path)) as {
      host: string;
      insecure: boolean;
      ca?: string;
      username?: string;
      password?: string;
    };
    return {
      host: body.host,
      insecure: body.insecure,
      ...(body.ca ? { ca: body.ca } : {}),
      ...(body.username !== undefined
        ? { credentials: { username: body.username, password: body.password ?? '' } }
        : {}),
    };
  }

  async #post(path: string, body: unknown): Promise<void> {
    await this.#call('POST', path, body);
  }

  /**
   * Calls a route and returns its JSON answer (undefined without one); throws UpstreamError on a failure, with
   * retry hint `retry` for network errors and 5xx answers and `stall` for 4xx answers (the same call would be
   * refused again), except a 404 of a GET: NotFoundError with hint `wait` (what is asked for may appear later).
   */
  async #call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const { token } = await this.#token.get();
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (err) {
      throw new UpstreamError(`the server at ${this.#base} cannot be reached`, { cause: err });
    }
    const text = await res.text().catch(() => '');
    if (res.ok) return text === '' ? undefined : (JSON.parse(text) as unknown);
    // A rotated ServiceAccount token: read the file again on the next call.
    if (res.status === 401) this.#token.invalidate();
    let message = text.slice(0, 300);
    try {
      message = String((JSON.parse(text) as { error?: unknown }).error ?? message);
    } catch {
      // not JSON: keep the text
    }
    if (method === 'GET' && res.status === 404) throw new NotFoundError(message, { retry: 'wait' });
    throw new UpstreamError(`the server answered ${path} with ${res.status}: ${message}`, {
      retry: res.status >= 500 ? 'retry' : 'stall',
    });
  }
}

/**
 * The channel `svc operator` uses when run alone, from its settings: undefined, with what is missing, unless the
 * server's URL and a credential (SVC_OPERATOR_TOKEN, or a ServiceAccount token file that exists) are set.
 */
export function httpChannelFromConfig(
  config: ChannelConfig,
): { channel: HttpServerChannel; missing?: never } | { channel?: never; missing: string } {
  const credential: OperatorCredential | undefined = config.operatorToken
    ? { token: config.operatorToken }
    : existsSync(config.operatorTokenFile)
      ? { tokenFile: config.operatorTokenFile }
      : undefined;
  if (!config.serverURL || !credential) {
    const needs = [
      ...(config.serverURL ? [] : ['SVC_SERVER_URL (the server’s URL)']),
      ...(credential
        ? []
        : [`SVC_OPERATOR_TOKEN, or a ServiceAccount token at ${config.operatorTokenFile} (SVC_OPERATOR_TOKEN_FILE)`]),
    ];
    return { missing: needs.join(' and ') };
  }
  return { channel: new HttpServerChannel(config.serverURL, credential) };
}
