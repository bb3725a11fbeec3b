/**
 * Hostile callers (issue 17 part 4): CSRF on cookie-authenticated writes, and cross-org access on every route with
 * path parameters, generated from the OpenAPI document so a new route is covered (or fails this test) by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSecret } from '../harness/index.ts';
import {
  createOrg,
  mintKey,
  type OrgApi,
  signUp,
  startOrgApi,
  startTestApi,
  type TestApi,
  type TestUser,
} from './api-support.ts';

describe('CSRF on cookie-authenticated writes (issue 17)', () => {
  let api: TestApi;
  let user: TestUser;
  beforeAll(async () => {
    api = await startTestApi();
    user = await signUp(api, 'csrf');
    await createOrg(api, user, `csrf-${Date.now().toString(36)}`);
  });
  afterAll(async () => {
    await api?.close();
  });

  const keyCount = async () =>
    (
      (await api.call<{ api_keys: unknown[] }>('GET', '/api/v1/auth/api-keys', { cookie: user.cookie })).body
        .api_keys ?? []
    ).length;

  it('CSRF: a session-cookie write from a foreign Origin is refused with 403 on /api/v1 and on the auth routes', async () => {
    const before = await keyCount();
    const body = JSON.stringify({ name: 'forged', role: 'read' });
    for (const [url, payload] of [
      ['/api/v1/auth/api-keys', body],
      ['/api/auth/sign-out', undefined],
      ['/api/auth/organization/create', JSON.stringify({ name: 'forged-org', slug: 'forged-org' })],
    ] as const) {
      const res = await api.call('POST', url, {
        cookie: user.cookie,
        ...(payload === undefined ? {} : { body: payload }),
        headers: {
          origin: 'https://evil.example',
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
      });
      expect(res.status, url).toBe(403);
      expect(String(res.body['error'])).toMatch(/cross-origin request refused/);
    }
    // A browser's no-Origin cross-site fetch still says where it comes from.
    const fetchMeta = await api.call('POST', '/api/v1/auth/api-keys', {
      cookie: user.cookie,
      body,
      headers: { origin: '', 'sec-fetch-site': 'cross-site' },
    });
    expect(fetchMeta.status).toBe(403);
    expect(await keyCount()).toBe(before);
    // The session survived the forged sign-out.
    expect((await api.call('GET', '/api/v1/auth/api-keys', { cookie: user.cookie })).status).toBe(200);
  });

  it('CSRF: a session-cookie write with a text/plain or form-encoded body is refused with 415, even from the own origin', async () => {
    const before = await keyCount();
    const json = JSON.stringify({ name: 'forged', role: 'read' });
    for (const [url, type, payload] of [
      ['/api/v1/auth/api-keys', 'text/plain', json],
      ['/api/v1/auth/api-keys', 'application/x-www-form-urlencoded', 'name=forged&role=read'],
      ['/api/v1/auth/api-keys', 'multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
      ['/api/auth/organization/create', 'text/plain', JSON.stringify({ name: 'forged-org', slug: 'forged-org' })],
      ['/api/auth/sign-in/email', 'application/x-www-form-urlencoded', `email=${user.email}&password=x`],
    ] as const) {
      const res = await api.call('POST', url, {
        cookie: user.cookie,
        body: payload,
        headers: { 'content-type': type },
      });
      expect(res.status, `${url} ${type}`).toBe(415);
      expect(res.body['error']).toBe('request bodies must be JSON (Content-Type: application/json)');
    }
    expect(await keyCount()).toBe(before);
    // The same write as same-origin JSON works, and API-key callers are not subject to the cookie rule.
    const ok = await api.call('POST', '/api/v1/auth/api-keys', {
      cookie: user.cookie,
      body: { name: 'ok', role: 'read' },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(await keyCount()).toBe(before + 1);
  });

  it('the OpenAPI document lists the 415 on every write route', async () => {
    const doc = await api.call('GET', '/api/v1/openapi.json');
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(
      doc.body['paths'] as Record<string, Record<string, { responses?: object }>>,
    )) {
      for (const [method, op] of Object.entries(ops)) {
        if (['post', 'put', 'patch', 'delete'].includes(method) && op.responses && !('415' in op.responses)) {
          missing.push(`${method} ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

/**
 * Path segments (first one after /api/v1) whose resources this test cannot create without a running operator, and
 * the test that proves their cross-org isolation instead. Any other parametrized route must get a value below.
 */
const COVERED_ELSEWHERE: Record<string, string> = {
  incidents: 'test/integration/ops-incidents.test.ts ("reaches no other org’s incidents or remediations")',
  remediations: 'test/integration/ops-incidents.test.ts ("reaches no other org’s incidents or remediations")',
};

describe('cross-org access on every route, from the OpenAPI document (issue 17)', () => {
  let org: OrgApi;
  let intruder: TestUser;
  /** Org A's values for each path parameter, by the route's first segment after /api/v1. */
  const values: Record<string, Record<string, string>> = {};
  beforeAll(async () => {
    org = await startOrgApi('xorg');
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await org.api.call(method, url, {
        cookie: org.owner.cookie,
        ...(body === undefined ? {} : { body }),
      });
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const app = await call('POST', '/api/v1/apps', {
      name: 'victim',
      namespace: `victim-${org.suffix}`,
      source: { type: 'Git', git: { repoURL: 'https://git.example.com/team/app.git' } },
    });
    values['apps'] = { namespace: `victim-${org.suffix}`, name: String(app['name'] ?? 'victim') };
    const appSet = await call('POST', '/api/v1/appsets', {
      name: 'victims',
      generators: [{ list: { elements: [{ env: 'dev' }] } }],
      template: {
        metadata: { name: 'victims-{{ env }}' },
        spec: {
          source: { type: 'Git', git: { repoURL: 'https://git.example.com/team/app.git' } },
          destination: { namespace: `victims-${org.suffix}-{{ env }}` },
        },
      },
    });
    values['appsets'] = { name: String(appSet['name']) };
    const registry = await call('POST', '/api/v1/registries', { name: 'reg', host: '127.0.0.1:5999' });
    values['registries'] = { id: String(registry['id']) };
    const check = await call('POST', '/api/v1/health-checks', { api_version: 'v1', kind: 'Service', current: 'true' });
    values['health-checks'] = { id: String(check['id']) };
    await call('POST', '/api/v1/catalog', {
      name: 'web',
      source: { type: 'Git', git: { repoURL: 'https://git.example.com/team/app.git', path: '{{ dir }}' } },
      params_schema: { type: 'object', properties: { dir: { type: 'string', default: '.' } } },
    });
    values['catalog'] = { name: 'web' };
    registerSecret('cross-org repository password', 'xorg-repository-password');
    const repository = await call('POST', '/api/v1/repositories', {
      name: 'repo',
      type: 'helm',
      url: 'http://127.0.0.1:5999/charts',
      username: 'u',
      password: 'xorg-repository-password',
    });
    values['repositories'] = { id: String(repository['id']) };
    const store = await call('POST', '/api/v1/secret-stores', {
      name: 'store',
      type: 'vault',
      provider: 'openbao',
      config: { address: 'http://127.0.0.1:8200' },
      credentials: { token: 'x' },
    });
    values['secret-stores'] = { id: String(store['id']) };
    const kubeconfig = [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]',
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
      '',
    ].join('\n');
    await call('POST', '/api/v1/clusters', { name: 'remote', server_url: 'https://127.0.0.1:6443', kubeconfig });
    values['clusters'] = { name: 'remote' };
    const webhook = await call('POST', '/api/v1/webhooks', {
      url: 'http://127.0.0.1:5999/h',
      events: ['incident.opened'],
    });
    values['webhooks'] = { id: String(webhook['id']) };
    const team = await call('POST', '/api/v1/teams', { name: 'core' });
    values['teams'] = { id: String(team['id']), userId: org.owner.id };
    const binding = await call('POST', '/api/v1/role-bindings', {
      subject_type: 'user',
      subject_id: org.owner.id,
      scope: 'deployment',
      scope_id: '/victim',
      level: 'read',
    });
    values['role-bindings'] = { id: String(binding['id']) };
    const key = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'read' });
    const sessions = (await call('GET', '/api/v1/auth/sessions')) as { sessions?: { id: string }[] };
    values['auth'] = { id: key.id, sessionId: String(sessions.sessions?.[0]?.id) };

    intruder = await signUp(org.api, 'intruder');
    await createOrg(org.api, intruder, `intruder-${org.suffix}`);
  });
  afterAll(async () => {
    await org?.api.close();
  });

  it('cross-org (IDOR): org B’s owner gets 404/403, never 2xx, with org A’s ids and names on every parametrized route', async () => {
    const doc = await org.api.call('GET', '/api/v1/openapi.json');
    const results: string[] = [];
    const uncovered: string[] = [];
    let proven = 0;
    for (const [path, ops] of Object.entries(doc.body['paths'] as Record<string, Record<string, unknown>>)) {
      if (!path.includes('{')) continue;
      const segment = path.replace(/^\/api\/v1\//, '').split('/')[0] as string;
      if (COVERED_ELSEWHERE[segment]) continue;
      const given = values[segment];
      let missing = false;
      const url = path.replace(/\{(\w+)\}/g, (_m, param: string) => {
        // /auth/sessions/{id} takes a session id, /auth/api-keys/{id} a key id.
        const value =
          path.startsWith('/api/v1/auth/sessions/') && param === 'id' ? given?.['sessionId'] : given?.[param];
        if (value === undefined) missing = true;
        return encodeURIComponent(value ?? '');
      });
      if (missing) {
        uncovered.push(path);
        continue;
      }
      for (const method of Object.keys(ops).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
        // Required query parameters get a placeholder, so the route reaches its lookup.
        const params = (
          (ops[method] as { parameters?: { in: string; name: string; required?: boolean }[] }).parameters ?? []
        )
          .filter((p) => p.in === 'query' && p.required)
          .map((p) => `${p.name}=x`);
        const res = await org.api.call(method.toUpperCase(), params.length ? `${url}?${params.join('&')}` : url, {
          cookie: intruder.cookie,
          ...(method === 'get' || method === 'delete' ? {} : { body: {} }),
        });
        results.push(`${method.toUpperCase()} ${path} → ${res.status}`);
        expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(400);
        // An empty body some routes refuse before any lookup (400) reveals nothing; the rest must not find org A's.
        if (res.status === 400 && method !== 'get' && method !== 'delete') continue;
        expect([403, 404], `${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
        proven++;
      }
    }
    expect(
      uncovered,
      'parametrized routes with no org-A value here: add one, or name the test that covers them',
    ).toEqual([]);
    expect(proven, results.join('\n')).toBeGreaterThan(30);
    // Org A's resources are all still there for org A.
    const mine = await org.api.call('GET', `/api/v1/apps/${values['apps']?.['namespace']}/victim`, {
      cookie: org.owner.cookie,
    });
    expect(mine.status).toBe(200);
  });
});
