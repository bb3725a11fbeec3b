/**
 * The operator's side of the internal channel when it runs apart from the server (`svc operator`): HTTP calls to
 * the server's `/internal/*` routes, authenticated with the operator's credential — the shared secret
 * SVC_OPERATOR_TOKEN, or else its Kubernetes ServiceAccount token (read again every minute and after a 401, as the
 * Kubernetes client does: the kubelet rotates it), which the server verifies with a TokenReview.
 */
import { existsSync } from 'node:fs';
import type { ChannelConfig } from '../../config.ts';
import type { HealthCheck } from '../../core/app-schema.ts';
import type { CatalogTemplateVersion } from '../../core/catalog.ts';
import { NotFoundError, UpstreamError } from '../../core/errors.ts';
import type { SourceAccess } from '../../core/repository.ts';
import {
  type ClusterAccessAnswer,
  type ClusterAccessBody,
  type ClusterLabels,
  type DecryptionKeyRequest,
  type EnvValuesRequest,
  INTERNAL_AUDIT_PATH,
  INTERNAL_CATALOG_PATH,
  INTERNAL_CLUSTERS_PATH,
  INTERNAL_DECRYPTION_KEY_PATH,
  INTERNAL_ENV_VALUES_PATH,
  INTERNAL_HEALTH_CHECKS_PATH,
  INTERNAL_REGISTRY_PATH,
  INTERNAL_SOURCE_ACCESS_PATH,
  INTERNAL_WINDOWS_PATH,
  internalClusterPath,
  type OrgDeliveryWindows,
  type ResolvedEnv,
  type ServerChannel,
  type SourceAccessBody,
  type SourceAccessRequest,
  type SystemAuditEntry,
  sourceAccessOf,
} from '../../internal/channel.ts';
import { TokenFile } from '../../kube/index.ts';
import type { RegistryEndpoint } from '../../registry/index.ts';
import { inSpan, SpanKind, withTraceHeaders } from '../../trace.ts';

/** How long one call may take before it counts as failed (and may be retried). */
const CALL_TIMEOUT_MS = 10_000;

/** Refusals that may pass without the App changing: something not there yet, a conflict, a rate limit. */
const WAIT_STATUSES = new Set([409, 429]);

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

  async decryptionKey(request: DecryptionKeyRequest): Promise<string> {
    const answer = await this.#post<{ private_key?: unknown }>(INTERNAL_DECRYPTION_KEY_PATH, {
      app_namespace: request.appNamespace,
      app_name: request.appName,
      store_ref: request.storeRef,
    });
    if (typeof answer?.private_key !== 'string') throw new UpstreamError('the server answered no decryption key');
    return answer.private_key;
  }

  async envValues(request: EnvValuesRequest): Promise<ResolvedEnv[]> {
    const answer = await this.#post<{ values?: unknown }>(INTERNAL_ENV_VALUES_PATH, {
      app_namespace: request.appNamespace,
      app_name: request.appName,
      refs: request.refs,
    });
    if (!Array.isArray(answer?.values)) throw new UpstreamError('the server answered no env.store values');
    return answer.values as ResolvedEnv[];
  }

  async clusterAccess(orgNamespace: string, name: string, known?: string): Promise<ClusterAccessAnswer> {
    const query = new URLSearchParams({ org_namespace: orgNamespace });
    const res = await this.#call(`${internalClusterPath(name)}?${query}`, {
      method: 'GET',
      headers: known ? { 'if-none-match': `"${known}"` } : {},
    });
    if (res.status === 304) return { changed: false };
    const body = (await res.json()) as ClusterAccessBody;
    return {
      changed: true,
      cluster: {
        name: body.name,
        orgNamespace: body.org_namespace,
        serverURL: body.server_url,
        namespaces: body.namespaces,
        ...(body.kubeconfig === undefined ? {} : { kubeconfig: body.kubeconfig }),
        revision: body.revision,
      },
    };
  }

  async clusters(orgNamespace: string): Promise<ClusterLabels[]> {
    const query = new URLSearchParams({ org_namespace: orgNamespace });
    const res = await this.#call(`${INTERNAL_CLUSTERS_PATH}?${query}`, { method: 'GET', headers: {} });
    const body = (await res.json()) as { items: ClusterLabels[] };
    return body.items.map((c) => ({ name: c.name, labels: c.labels ?? {} }));
  }

  async registry(orgNamespace: string, name: string): Promise<RegistryEndpoint> {
    const path = `${INTERNAL_REGISTRY_PATH}/${encodeURIComponent(orgNamespace)}/${encodeURIComponent(name)}`;
    const res = await this.#call(path, { method: 'GET', headers: {} });
    const body = (await res.json()) as {
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

  async healthChecks(orgNamespace: string): Promise<HealthCheck[]> {
    const res = await this.#call(`${INTERNAL_HEALTH_CHECKS_PATH}/${encodeURIComponent(orgNamespace)}`, {
      method: 'GET',
      headers: {},
    });
    const body = (await res.json()) as { items: (HealthCheck & { id?: string })[] };
    return body.items.map(({ apiVersion, kind, current, inProgress, failed }) => ({
      apiVersion,
      kind,
      current,
      ...(inProgress ? { inProgress } : {}),
      ...(failed ? { failed } : {}),
    }));
  }

  async deliveryWindows(orgNamespace: string): Promise<OrgDeliveryWindows> {
    const res = await this.#call(`${INTERNAL_WINDOWS_PATH}/${encodeURIComponent(orgNamespace)}`, {
      method: 'GET',
      headers: {},
    });
    return (await res.json()) as OrgDeliveryWindows;
  }

  async catalogTemplate(orgNamespace: string, name: string, version?: number): Promise<CatalogTemplateVersion> {
    const query = version === undefined ? '' : `?version=${version}`;
    const path = `${INTERNAL_CATALOG_PATH}/${encodeURIComponent(orgNamespace)}/${encodeURIComponent(name)}${query}`;
    const res = await this.#call(path, { method: 'GET', headers: {} });
    return (await res.json()) as CatalogTemplateVersion;
  }

  async sourceAccess(request: SourceAccessRequest): Promise<SourceAccess | undefined> {
    const answer = await this.#post<SourceAccessBody>(INTERNAL_SOURCE_ACCESS_PATH, {
      org_namespace: request.orgNamespace,
      type: request.type,
      url: request.url,
      ...(request.repositoryRef ? { repository_ref: request.repositoryRef } : {}),
    });
    return sourceAccessOf(answer);
  }

  /** POSTs JSON and resolves with the parsed answer (undefined when it has no JSON body); failures as #call. */
  async #post<T = unknown>(path: string, body: unknown): Promise<T | undefined> {
    const res = await this.#call(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text().catch(() => '');
    try {
      return text ? (JSON.parse(text) as T) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * One call with the operator's credential; answers 2xx and 304. Throws UpstreamError on a failure, with retry hint
   * `retry` for network errors and 5xx answers, `wait` for answers that may change without the App changing (409,
   * 429 rate-limited) and `stall` for other 4xx answers (the same call would be refused again); a 404 is a
   * NotFoundError with hint `wait` (what is asked for may appear later).
   */
  #call(path: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<Response> {
    // The path only: a query names an org or a revision, nothing a trace needs.
    const route = `/internal${path.split('?')[0] ?? path}`;
    const attributes = { 'http.request.method': init.method, 'url.path': route };
    return inSpan(
      `${init.method} ${route}`,
      attributes,
      async (span) => {
        const res = await this.#send(path, init);
        span.setAttribute('http.response.status_code', res.status);
        return res;
      },
      SpanKind.CLIENT,
    );
  }

  /** #call without its span. */
  async #send(path: string, init: { method: string; headers: Record<string, string>; body?: string }) {
    const { token } = await this.#token.get();
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, {
        ...init,
        // The trace context goes along: the server's span of this call joins the reconcile's trace.
        headers: withTraceHeaders({ ...init.headers, authorization: `Bearer ${token}` }),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (err) {
      throw new UpstreamError(`the server at ${this.#base} cannot be reached`, { cause: err });
    }
    if (res.ok || res.status === 304) return res;
    // A rotated ServiceAccount token: read the file again on the next call.
    if (res.status === 401) this.#token.invalidate();
    const text = await res.text().catch(() => '');
    let message = text.slice(0, 300);
    try {
      message = String((JSON.parse(text) as { error?: unknown }).error ?? message);
    } catch {
      // not JSON: keep the text
    }
    // What is asked for is not there (yet): the same error the in-process channel throws.
    if (res.status === 404) throw new NotFoundError(message, { retry: 'wait' });
    throw new UpstreamError(`the server answered ${path.split('?')[0]} with ${res.status}: ${message}`, {
      retry: res.status >= 500 ? 'retry' : WAIT_STATUSES.has(res.status) ? 'wait' : 'stall',
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
