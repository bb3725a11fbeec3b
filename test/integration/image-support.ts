/**
 * Shared by the image-*.test.ts files: an API server with an org, the real operator watching the org's namespace
 * (given the server's internal channel, as `svc start` wires it, unless asked to run apart over HTTP), and helpers
 * to register harness registries and create image Apps through the API.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import type { Registry } from '../harness/index.ts';
import { type OrgApi, startOrgApi } from './api-support.ts';
import { deleteNamespaces, startTestOperator, type TestOperator, unique, waitForApp } from './operator-support.ts';

type Json = Record<string, unknown>;

export interface ImageSuite {
  org: OrgApi;
  op: TestOperator;
  /** The API's base URL when it listens on a port (`listen: true`). */
  serverURL: string;
  /** The operator credential (SVC_OPERATOR_TOKEN) of an `http` channel suite. */
  operatorToken: string;
  /** Registers a harness registry under `name` (plain http, its credentials); returns its id and token. */
  addRegistry(name: string, registry: Registry, host?: string): Promise<{ id: string; token: string }>;
  /** Creates an image App through the API into a fresh destination; returns the destination namespace. */
  imageApp(name: string, image: Json, extra?: Json): Promise<string>;
  /** POSTs to an App's route as the owner. */
  post(dest: string, name: string, route: string, body?: unknown): Promise<{ status: number; body: Json }>;
  /** Waits until the operation `id` of the App has Succeeded. */
  succeeded(name: string, id: unknown): Promise<AppResource>;
  /** Waits until the App has applied `digest` and is Synced and Healthy with no operation pending. */
  settled(name: string, digest: string): Promise<AppResource>;
  stop(): Promise<void>;
}

/**
 * Starts the suite: API (with `env`), listening on a loopback port when `listen` (registries post notifications
 * to it; the operator runs apart over HTTP with `channel: 'http'`), and the operator (its log lines collected into
 * `logLines` when given; the API's into `apiLogLines`).
 */
export async function startImageSuite(
  prefix: string,
  options: {
    env?: Record<string, string>;
    listen?: boolean;
    channel?: 'local' | 'http';
    logLines?: string[];
    /** Collects the API server's log lines here. */
    apiLogLines?: string[];
  } = {},
): Promise<ImageSuite> {
  const operatorToken = randomBytes(32).toString('hex');
  const http = options.channel === 'http';
  const org = await startOrgApi(
    prefix,
    { ...(http ? { SVC_OPERATOR_TOKEN: operatorToken } : {}), ...options.env },
    options.apiLogLines ? { logLines: options.apiLogLines } : {},
  );
  const dests: string[] = [];
  let serverURL = '';
  let op: TestOperator | undefined;
  try {
    if (options.listen || http) {
      await org.api.app.listen({ host: '127.0.0.1', port: 0 });
      serverURL = `http://127.0.0.1:${(org.api.app.server.address() as AddressInfo).port}`;
    }
    const logs = options.logLines ? { logLines: options.logLines } : {};
    op = http
      ? await startTestOperator(org.orgNs, {
          env: { SVC_SERVER_URL: serverURL, SVC_OPERATOR_TOKEN: operatorToken },
          ...logs,
        })
      : await startTestOperator(org.orgNs, { serverChannel: org.api.app.serverChannel, ...logs });
  } catch (err) {
    await org.api.close();
    throw err;
  }
  const started = op;
  const owner = { cookie: org.owner.cookie };
  return {
    org,
    op: started,
    serverURL,
    operatorToken,
    async addRegistry(name, registry, host = registry.host) {
      const creds = registry.credentials;
      const res = await org.api.call<Json>('POST', '/api/v1/registries', {
        ...owner,
        body: {
          name,
          host,
          insecure: true,
          ...(creds ? { username: creds.user, password: creds.password } : {}),
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return { id: String(res.body['id']), token: String(res.body['notification_token']) };
    },
    async imageApp(name, image, extra = {}) {
      const dest = unique('dest');
      dests.push(dest);
      const res = await org.api.call('POST', '/api/v1/apps', {
        ...owner,
        body: { name, namespace: dest, source: { type: 'Image', image }, ...extra },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return dest;
    },
    post(dest, name, route, body) {
      return org.api.call<Json>('POST', `/api/v1/apps/${dest}/${name}/${route}`, {
        ...owner,
        ...(body === undefined ? {} : { body }),
      });
    },
    succeeded(name, id) {
      return waitForApp(org.orgNs, name, `operation ${String(id)} Succeeded`, (a) => {
        const state = a.status?.operationState;
        return state?.id === id && state?.phase === 'Succeeded';
      });
    },
    settled(name, digest) {
      return waitForApp(org.orgNs, name, `${name} Synced and Healthy at ${digest}`, (a) => {
        const s = a.status;
        const pending = a.spec.operation && s?.operationState?.id !== a.spec.operation.id;
        return (
          !pending &&
          s?.revision === digest &&
          s.syncStatus === 'Synced' &&
          s.healthStatus === 'Healthy' &&
          s.operationState?.phase !== 'Running'
        );
      });
    },
    async stop() {
      await started.stop();
      await org.api.close();
      await deleteNamespaces(org.orgNs, ...dests);
    },
  };
}
