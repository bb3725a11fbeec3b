/**
 * Hostile callers and inputs from peers' advisories (issue 17) that no other file covers. Each case is named after
 * the advisory it mirrors. Covered elsewhere (docs/compatibility.md, issue 17 lists them): path escapes
 * (src/render/render.test.ts), kustomize remote bases (operator-kustomize-policy.test.ts), webhook 400/413/429
 * (operator-webhook.test.ts), SSRF (src/net/outbound.test.ts, secret-store-errors.test.ts), HTML escaping
 * (cli-login.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OrgApi, signUp, startOrgApi, startTestApi, type TestApi } from './api-support.ts';

/** A credential string no response may contain. */
const secret = (what: string) => `${what}-${randomBytes(12).toString('hex')}`;

describe('hostile inputs (issue 17)', () => {
  describe('CVE-2025-55190: credentials are never returned by any route', () => {
    let org: OrgApi;
    const secrets: Record<string, string> = {
      registryPassword: secret('registry-password'),
      storeToken: secret('store-token'),
      clusterToken: secret('cluster-token'),
    };
    const ids: string[] = [];
    beforeAll(async () => {
      org = await startOrgApi('leaks');
    });
    afterAll(async () => {
      await org?.api.close();
    });

    it('CVE-2025-55190: a registry, a secret store, a cluster and a webhook with known secrets; no GET route answers them', async () => {
      const call = (method: string, url: string, body?: unknown) =>
        org.api.call(method, url, { cookie: org.owner.cookie, ...(body === undefined ? {} : { body }) });
      const registry = await call('POST', '/api/v1/registries', {
        name: 'leaky',
        host: '127.0.0.1:5999',
        username: 'ci',
        password: secrets.registryPassword,
      });
      expect(registry.status, JSON.stringify(registry.body)).toBe(201);
      const store = await call('POST', '/api/v1/secret-stores', {
        name: 'leaky',
        type: 'vault',
        provider: 'openbao',
        config: { address: 'http://127.0.0.1:8200' },
        credentials: { token: secrets.storeToken },
      });
      expect(store.status, JSON.stringify(store.body)).toBe(201);
      const kubeconfig = [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]',
        `users: [{name: u, user: {token: ${secrets.clusterToken}}}]`,
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
        '',
      ].join('\n');
      const cluster = await call('POST', '/api/v1/clusters', {
        name: 'leaky',
        server_url: 'https://127.0.0.1:6443',
        kubeconfig,
      });
      expect(cluster.status, JSON.stringify(cluster.body)).toBe(201);
      // An outbound webhook's signing secret is shown once, in the create answer, and never again.
      const webhook = await call('POST', '/api/v1/webhooks', {
        url: 'http://127.0.0.1:5999/hook',
        events: ['incident.opened'],
      });
      expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
      const signing = String(webhook.body['secret']);
      expect(signing).toMatch(/^whsec_/);
      Object.assign(secrets, { webhookSecret: signing });
      for (const r of [registry, store, cluster, webhook]) ids.push(String(r.body['id']));
      for (const r of [registry, store, cluster]) ids.push(String(r.body['name']));

      const doc = await call('GET', '/api/v1/openapi.json');
      expect(doc.status).toBe(200);
      type GetOp = { responses?: Record<string, { content?: Record<string, unknown> }> };
      // The event stream never ends by design (GET /apps/stream): its frames are the App views every other route
      // answers, scanned there.
      const streams = (op: GetOp) => Object.keys(op.responses?.['200']?.content ?? {}).includes('text/event-stream');
      const paths = Object.entries(doc.body['paths'] as Record<string, { get?: GetOp }>)
        .filter(([, ops]) => ops.get !== undefined && !streams(ops.get))
        .map(([path]) => path);
      expect(paths).toEqual(
        expect.arrayContaining(['/api/v1/registries', '/api/v1/secret-stores', '/api/v1/clusters']),
      );
      // Every GET route, each path parameter filled with every known id and name (the ones that do not fit answer
      // 404/400, which must not leak either).
      const urls = new Set<string>();
      for (const path of paths) {
        if (!path.includes('{')) urls.add(path);
        else for (const id of ids) urls.add(path.replace(/\{[^}]+\}/g, encodeURIComponent(id)));
      }
      let ok = 0;
      for (const url of urls) {
        const res = await call('GET', url);
        const body = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
        for (const [label, value] of Object.entries(secrets)) {
          expect(body.includes(value), `${label} in GET ${url}`).toBe(false);
        }
        // The cluster's server does not exist: routes that reach it answer 502/503, never a 500.
        expect(res.status, `GET ${url}: ${body.slice(0, 200)}`).not.toBe(500);
        if (res.status === 200) ok++;
      }
      // The scan read real answers (the list and get routes of all four), not only refusals.
      expect(ok).toBeGreaterThanOrEqual(8);
    });
  });

  describe('CVE-2025-61560: sign-in throttling holds under concurrency', () => {
    let api: TestApi;
    beforeAll(async () => {
      // Better Auth's rate limit is on in production mode (src/auth/better-auth.ts).
      api = await startTestApi({ env: { NODE_ENV: 'production' } });
    });
    afterAll(async () => {
      await api?.close();
    });

    it('CVE-2025-61560: concurrent bad sign-ins with rotating X-Forwarded-For are throttled, the right password too', async () => {
      const user = await signUp(api, 'victim');
      const attempts = 20;
      const replies = await Promise.all(
        Array.from({ length: attempts }, (_, i) =>
          api.call('POST', '/api/auth/sign-in/email', {
            body: { email: user.email, password: `wrong-${i}` },
            headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
          }),
        ),
      );
      const statuses = replies.map((r) => r.status);
      const throttled = statuses.filter((s) => s === 429).length;
      // Better Auth's sign-in rule: 3 requests per 10 s per client address; the rest are refused however many race.
      expect(
        statuses.filter((s) => s !== 429).every((s) => s === 401),
        statuses.join(','),
      ).toBe(true);
      expect(throttled, statuses.join(',')).toBeGreaterThanOrEqual(attempts - 3);
      const right = await api.call('POST', '/api/auth/sign-in/email', {
        body: { email: user.email, password: 'correct horse battery' },
        headers: { 'x-forwarded-for': '198.51.100.7' },
      });
      expect(right.status).toBe(429);
    });
  });
});
