/**
 * Shared by the api-*.test.ts files: an API server on a fresh database (SQLite file, or PostgreSQL when asked
 * for), driven over HTTP with fastify.inject, and users signed up and signed
 * in through the auth component's own /api/auth/* endpoints.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { expect, inject } from 'vitest';
import type { StreamOptions } from '../../src/api/routes/app-stream.ts';
import type { SecretStoreTuning } from '../../src/api/secret-stores/tuning.ts';
import { type DatabaseConfig, loadConfig } from '../../src/config.ts';
import { APP_API_VERSION, APP_KIND, type AppResource } from '../../src/core/app-schema.ts';
import {
  type AnyObject,
  connect,
  type InClusterOptions,
  type KubeClient,
  type ObjectClient,
} from '../../src/kube/index.ts';
import { REDACTED_PATHS } from '../../src/log.ts';
import { buildServer } from '../../src/server.ts';
import { createPostgresDatabase, LeakScanLog } from '../harness/index.ts';
import { captureResponse, registerRequestSecrets } from '../harness/leak-responses.ts';

const appRef = (namespace: string, name: string) => ({ apiVersion: APP_API_VERSION, kind: APP_KIND, namespace, name });

export const PUBLIC_URL = 'http://svc.test';

export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface Credential {
  cookie?: string;
  key?: string;
}

export interface TestApi {
  app: FastifyInstance;
  /** The server's database, for tests that reach under the API (e.g. to make a write fail). */
  database: DatabaseConfig;
  /** Sends a request; `body` is sent as JSON, a string as-is. */
  call<T = Record<string, unknown>>(
    method: string,
    url: string,
    options?: Credential & { body?: unknown; headers?: Record<string, string> },
  ): Promise<Reply<T>>;
  close(): Promise<void>;
}

/** Starts an API server on a fresh database (SQLite by default), with or without a management cluster. */
export async function startTestApi(
  options: {
    mgmtKubeconfig?: string;
    database?: 'sqlite' | 'postgres';
    /** Use this existing database (e.g. shared by several replicas) instead of a fresh one. */
    databaseURL?: string;
    /** Use this AUTH_SECRET (replicas must share it). */
    authSecret?: string;
    sessionCookieName?: string;
    /** Collects the server's JSON log lines (info level) here instead of discarding them. */
    logLines?: string[];
    /** Further settings (e.g. SVC_OPERATOR_TOKEN). */
    env?: Record<string, string>;
    /** What the server takes for its in-cluster credentials (clusters registered without a kubeconfig). */
    inCluster?: InClusterOptions;
    /** Secret-store timeouts and rate limits (shortened by tests). */
    secretStores?: Partial<SecretStoreTuning>;
    /** Timing of GET /apps/stream (a shorter heartbeat and re-authentication). */
    stream?: Partial<StreamOptions>;
  } = {},
): Promise<TestApi> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-api-'));
  const postgres = options.database === 'postgres' && !options.databaseURL ? await createPostgresDatabase() : undefined;
  const config = loadConfig({
    env: {
      SVC_DATA_DIR: dir,
      SVC_PUBLIC_URL: PUBLIC_URL,
      AUTH_SECRET: options.authSecret ?? randomBytes(32).toString('hex'),
      SVC_CREDENTIALS_KEY: randomBytes(32).toString('hex'),
      ...(options.mgmtKubeconfig ? { SVC_MGMT_KUBECONFIG: options.mgmtKubeconfig } : {}),
      ...(postgres ? { SVC_DATABASE_URL: postgres.url } : {}),
      ...(options.databaseURL ? { SVC_DATABASE_URL: options.databaseURL } : {}),
      ...(options.sessionCookieName ? { SESSION_COOKIE_NAME: options.sessionCookieName } : {}),
      ...options.env,
    },
    cwd: dir,
  });
  const lines = options.logLines;
  // Every server logs at info, as in production, into the run's leak check (and the test's lines when asked);
  // SVC_TEST_LOG=<level> also prints them, as it does the in-process operator's.
  const log = new LeakScanLog('in-process API server log');
  const printLevel = process.env['SVC_TEST_LOG'];
  const logger = pino(
    { level: printLevel ?? 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    {
      write: (l: string) => {
        lines?.push(l);
        log.write(l);
        if (printLevel) process.stdout.write(l);
      },
    },
  );
  const app = await buildServer({
    config,
    logger,
    // Every answer is checked against its documented schema: a field a view returns that the schema lacks fails.
    checkAnswers: true,
    ...(options.secretStores ? { secretStores: options.secretStores } : {}),
    ...(options.inCluster ? { inCluster: options.inCluster } : {}),
    ...(options.stream ? { stream: options.stream } : {}),
  });
  await app.ready();
  return {
    app,
    database: config.database,
    async call(method, url, opts = {}) {
      const headers: Record<string, string> = { origin: PUBLIC_URL, ...opts.headers };
      if (opts.cookie) headers['cookie'] = opts.cookie;
      if (opts.key) headers['authorization'] = `Bearer ${opts.key}`;
      let payload: string | undefined;
      if (opts.body !== undefined) {
        payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await app.inject({
        method: method as 'GET',
        url,
        headers,
        ...(payload !== undefined ? { payload } : {}),
      });
      registerRequestSecrets(method, url, opts.body);
      captureResponse(method, url, res.statusCode, res.body);
      let body: unknown = res.body;
      try {
        body = JSON.parse(res.body);
      } catch {
        // Non-JSON bodies stay text.
      }
      return { status: res.statusCode, body: body as never, headers: res.headers };
    },
    async close() {
      await app.close();
      log.flush();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A signed-in user: its session cookie and ids. */
export interface TestUser {
  id: string;
  email: string;
  cookie: string;
}

/** Every test user's password (registered with the run's leak check by test/harness/leak-setup.ts). */
const TEST_PASSWORD = 'correct horse battery';

/** Signs a new user up through /api/auth/sign-up/email and returns its session cookie. */
export async function signUp(api: TestApi, name: string, cookieName = SESSION_COOKIE): Promise<TestUser> {
  const email = `${name}-${randomBytes(4).toString('hex')}@example.test`;
  const res = await api.call<{ user: { id: string } }>('POST', '/api/auth/sign-up/email', {
    body: { email, password: TEST_PASSWORD, name },
  });
  if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, email, cookie: cookieFrom(res.headers['set-cookie'], cookieName) };
}

/** Signs an existing user in again (a second session). */
export async function signIn(api: TestApi, user: TestUser): Promise<string> {
  const res = await api.call('POST', '/api/auth/sign-in/email', {
    body: { email: user.email, password: TEST_PASSWORD },
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  return cookieFrom(res.headers['set-cookie']);
}

const SESSION_COOKIE = 'better-auth.session_token';

function cookieFrom(header: string | string[] | number | undefined, name = SESSION_COOKIE): string {
  const all = Array.isArray(header) ? header : typeof header === 'string' ? [header] : [];
  const session = all.find((c) => c.startsWith(`${name}=`));
  if (!session) throw new Error('no session cookie was set');
  return session.split(';')[0] as string;
}

/** Creates an org as `owner` (who becomes its Owner, with the org active in the session); returns its id. */
export async function createOrg(api: TestApi, owner: TestUser, slug: string): Promise<string> {
  const res = await api.call<{ id: string }>('POST', '/api/auth/organization/create', {
    cookie: owner.cookie,
    body: { name: slug, slug },
  });
  if (res.status !== 200) throw new Error(`org create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Invites `user` into the owner's active org with a Better Auth role and accepts; the org becomes active for them. */
export async function addMember(
  api: TestApi,
  owner: TestUser,
  orgId: string,
  user: TestUser,
  role: 'admin' | 'contributor' | 'member' | 'viewer',
): Promise<void> {
  const invite = await api.call<{ id: string }>('POST', '/api/auth/organization/invite-member', {
    cookie: owner.cookie,
    body: { email: user.email, role, organizationId: orgId },
  });
  if (invite.status !== 200) throw new Error(`invite failed: ${invite.status} ${JSON.stringify(invite.body)}`);
  const accept = await api.call('POST', '/api/auth/organization/accept-invitation', {
    cookie: user.cookie,
    body: { invitationId: invite.body.id },
  });
  if (accept.status !== 200) throw new Error(`accept failed: ${accept.status} ${JSON.stringify(accept.body)}`);
  const active = await api.call('POST', '/api/auth/organization/set-active', {
    cookie: user.cookie,
    body: { organizationId: orgId },
  });
  if (active.status !== 200) throw new Error(`set-active failed: ${active.status} ${JSON.stringify(active.body)}`);
}

/** Signs a new user up and makes them a member of the owner's org with `role` (see addMember). */
export async function signUpMember(
  api: TestApi,
  owner: TestUser,
  orgId: string,
  name: string,
  role: 'admin' | 'contributor' | 'member' | 'viewer',
): Promise<TestUser> {
  const user = await signUp(api, name);
  await addMember(api, owner, orgId, user, role);
  return user;
}

/** An API server on the harness's management cluster with a fresh owner and their org. */
export interface OrgApi {
  api: TestApi;
  kube: AppResources;
  owner: TestUser;
  orgId: string;
  /** The org's namespace, `org-<slug>`, which holds its App resources. */
  orgNs: string;
  /** The random hex that ends the org's slug `<prefix>-<suffix>`, for other names unique to the run. */
  suffix: string;
}

/**
 * Starts an API server against the harness's management cluster, signs up `owner` and creates the org
 * `<prefix>-<random hex>` (active in the owner's session), with further settings `env` (and `more`: the server's log
 * lines, its in-cluster credentials). Closes the server again when a step after its start fails.
 */
export async function startOrgApi(
  prefix: string,
  env?: Record<string, string>,
  options: {
    secretStores?: Partial<SecretStoreTuning>;
    logLines?: string[];
    inCluster?: InClusterOptions;
    stream?: Partial<StreamOptions>;
  } = {},
): Promise<OrgApi> {
  const kubeconfig = inject('mgmtKubeconfig');
  const api = await startTestApi({ mgmtKubeconfig: kubeconfig, ...(env ? { env } : {}), ...options });
  try {
    const kube = new AppResources(kubeconfig);
    const suffix = randomBytes(3).toString('hex');
    const owner = await signUp(api, 'owner');
    const orgId = await createOrg(api, owner, `${prefix}-${suffix}`);
    return { api, kube, owner, orgId, orgNs: `org-${prefix}-${suffix}`, suffix };
  } catch (err) {
    await api.close();
    throw err;
  }
}

/** The newest 200 audit entries, read as `reader`, filtered to `action` on the resource named `name`. */
export async function auditEntries(
  api: TestApi,
  reader: TestUser,
  action: string,
  name: string,
): Promise<Record<string, unknown>[]> {
  const res = await api.call<{ entries: Record<string, unknown>[] }>('GET', '/api/v1/audit?limit=200', {
    cookie: reader.cookie,
  });
  return res.body.entries.filter((e) => e['action'] === action && e['resource_name'] === name);
}

/** Asserts that `cred` gets 404 on every `[method, url, body?]`: another org's resource reads as absent. */
export async function expectEveryNotFound(
  api: TestApi,
  cred: Credential,
  tries: Array<[string, string, unknown?]>,
): Promise<void> {
  for (const [method, url, body] of tries) {
    const res = await api.call(method, url, { ...cred, ...(body === undefined ? {} : { body }) });
    expect(res.status, `${method} ${url}`).toBe(404);
  }
}

/** Mints an API key for the caller; returns the plaintext and the id. */
export async function mintKey(
  api: TestApi,
  cred: Credential,
  body: { name?: string; role: string; scope?: string; scope_id?: string; expires_days?: number; tools?: string[] },
): Promise<{ key: string; id: string }> {
  const res = await api.call<{ key: string; id: string }>('POST', '/api/v1/auth/api-keys', {
    ...cred,
    body: { name: 'test', ...body },
  });
  if (res.status !== 201) throw new Error(`mint failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Direct access to App resources on the test control plane, to assert what the API wrote and to play the operator. */
export class AppResources {
  readonly client: KubeClient;
  readonly objects: ObjectClient;
  constructor(kubeconfigPath: string) {
    ({ client: this.client, objects: this.objects } = connect({ kubeconfigPath }));
  }

  async #namespace(name: string): Promise<void> {
    await this.objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }

  /**
   * Creates a Deployment by hand (as `kubectl create` would) whose pods carry `podLabels` (its selector), with one
   * container (`main` running `registry.example.test/team/shop:1.4.2` on port 8080 unless `container` says else).
   */
  async deployment(
    namespace: string,
    name: string,
    podLabels: Record<string, string>,
    extraLabels: Record<string, string> = {},
    container: Record<string, unknown> = {},
  ): Promise<void> {
    await this.#namespace(namespace);
    await this.client.request(`/apis/apps/v1/namespaces/${namespace}/deployments`, {
      method: 'POST',
      query: { fieldManager: 'kubectl-create' },
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, labels: { ...podLabels, ...extraLabels } },
        spec: {
          replicas: 2,
          selector: { matchLabels: podLabels },
          template: {
            metadata: { labels: podLabels },
            spec: {
              containers: [
                {
                  name: 'main',
                  image: 'registry.example.test/team/shop:1.4.2',
                  ports: [{ containerPort: 8080 }],
                  ...container,
                },
              ],
            },
          },
        },
      },
    });
  }

  /** Records a Kubernetes event about an object, at `at`. */
  async event(
    namespace: string,
    involved: { kind: string; name: string; apiVersion?: string },
    e: { reason: string; message: string; type?: string; at: Date },
  ): Promise<void> {
    await this.#namespace(namespace);
    const at = e.at.toISOString().replace(/\.\d{3}Z$/, 'Z');
    await this.client.request(`/api/v1/namespaces/${namespace}/events`, {
      method: 'POST',
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: `${involved.name}.` },
        involvedObject: { ...involved, namespace },
        reason: e.reason,
        message: e.message,
        type: e.type ?? 'Normal',
        firstTimestamp: at,
        lastTimestamp: at,
        source: { component: 'test' },
      },
    });
  }

  /** The App resource, or undefined. */
  async get(namespace: string, name: string): Promise<AppResource | undefined> {
    return (await this.objects.get(appRef(namespace, name))) as AppResource | undefined;
  }

  /** Names of the Apps in a namespace. */
  async names(namespace: string): Promise<string[]> {
    const list = await this.client.request<{ items: AppResource[] }>(
      await this.objects.path({ apiVersion: APP_API_VERSION, kind: APP_KIND, namespace }),
    );
    return list.items.map((a) => a.metadata.name).sort();
  }

  /** Writes status fields the way the operator does (merge patch on the status subresource). */
  async setStatus(namespace: string, name: string, status: Record<string, unknown>): Promise<void> {
    await this.objects.mergePatch(appRef(namespace, name), { status }, 'status');
  }

  /** Marks the App's pending operation as consumed with `phase`, as the operator would. */
  async completeOperation(namespace: string, name: string, phase: string, extra: Record<string, unknown> = {}) {
    const app = await this.get(namespace, name);
    const op = app?.spec.operation;
    if (!op) throw new Error('no operation to complete');
    await this.setStatus(namespace, name, {
      operationState: { kind: op.kind, id: op.id, initiatedAt: op.initiatedAt, phase, ...extra },
    });
  }

  /** Creates an object (e.g. an App written directly, not through the API). */
  async create(obj: AnyObject): Promise<void> {
    await this.client.request(await this.objects.path({ ...obj, namespace: obj.metadata.namespace }), {
      method: 'POST',
      body: obj,
    });
  }

  /** Deletes an object; false when it was already gone. */
  delete(ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<boolean> {
    return this.objects.delete(ref);
  }
}
