/**
 * The OpenAPI document at /api/v1/openapi.json: public, valid OpenAPI 3.0, generated from the route schemas, and
 * covering every route of the contract's auth, apps and audit groups. Also: without a management cluster every
 * /apps route answers 503, credentials or not, and errors keep the {"error"} shape.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, startTestApi, type TestApi, type TestUser } from './api-support.ts';

const ROUTES: Array<[string, string]> = [
  ['get', '/api/v1/auth/me'],
  ['get', '/api/v1/auth/sessions'],
  ['delete', '/api/v1/auth/sessions/{id}'],
  ['post', '/api/v1/auth/can-i'],
  ['post', '/api/v1/auth/api-keys'],
  ['get', '/api/v1/auth/api-keys'],
  ['delete', '/api/v1/auth/api-keys/{id}'],
  ['get', '/api/v1/audit'],
  ['get', '/api/v1/role-bindings'],
  ['post', '/api/v1/role-bindings'],
  ['delete', '/api/v1/role-bindings/{id}'],
  ['post', '/api/v1/mcp'],
  ['get', '/api/v1/apps'],
  ['post', '/api/v1/apps'],
  ['post', '/api/v1/apps/preview'],
  ['get', '/api/v1/apps/adoptable'],
  ['post', '/api/v1/apps/adopt'],
  ['get', '/api/v1/apps/{namespace}/{name}'],
  ['delete', '/api/v1/apps/{namespace}/{name}'],
  ['get', '/api/v1/apps/{namespace}/{name}/status'],
  ['get', '/api/v1/apps/{namespace}/{name}/events'],
  ['get', '/api/v1/apps/{namespace}/{name}/history'],
  ...['sync', 'deploy', 'rollback', 'promote', 'clone', 'restart', 'approve', 'scale', 'freeze', 'unfreeze'].map(
    (op): [string, string] => ['post', `/api/v1/apps/{namespace}/{name}/${op}`],
  ),
  ['get', '/api/v1/clusters'],
  ['post', '/api/v1/clusters'],
  ['post', '/api/v1/clusters/test'],
  ['get', '/api/v1/clusters/{name}'],
  ['patch', '/api/v1/clusters/{name}'],
  ['delete', '/api/v1/clusters/{name}'],
  ['get', '/api/v1/clusters/{name}/namespaces'],
  ['post', '/api/v1/clusters/{name}/shell'],
  ['get', '/api/v1/registries'],
  ['post', '/api/v1/registries'],
  ['get', '/api/v1/registries/{id}'],
  ['patch', '/api/v1/registries/{id}'],
  ['delete', '/api/v1/registries/{id}'],
  ['post', '/api/v1/registries/test'],
  ['post', '/api/v1/registries/{id}/test'],
  ['post', '/api/v1/registries/{id}/notifications'],
];

/** An error answer: the Error component, `{"error": string}` (src/api/contract/errors.ts). */
const ERROR_ANSWER = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

/** The operations-loop routes (issue 13): teams, webhooks, incidents, remediations. */
const OPS_ROUTES: Array<[string, string]> = [
  ['get', '/api/v1/teams'],
  ['post', '/api/v1/teams'],
  ['get', '/api/v1/teams/{id}'],
  ['patch', '/api/v1/teams/{id}'],
  ['delete', '/api/v1/teams/{id}'],
  ['post', '/api/v1/teams/{id}/members'],
  ['delete', '/api/v1/teams/{id}/members/{userId}'],
  ['get', '/api/v1/webhooks'],
  ['post', '/api/v1/webhooks'],
  ['get', '/api/v1/webhooks/{id}'],
  ['delete', '/api/v1/webhooks/{id}'],
  ['post', '/api/v1/webhooks/{id}/test'],
  ['get', '/api/v1/webhooks/{id}/deliveries'],
  ['get', '/api/v1/incidents'],
  ['post', '/api/v1/incidents'],
  ['get', '/api/v1/incidents/{id}'],
  ['post', '/api/v1/incidents/{id}/acknowledge'],
  ['post', '/api/v1/incidents/{id}/resolve'],
  ['get', '/api/v1/remediations'],
  ['get', '/api/v1/remediations/{id}'],
  ['post', '/api/v1/remediations/{id}/approve'],
  ['post', '/api/v1/remediations/{id}/reject'],
];
/** The error statuses each /clusters route documents beyond 400, 401, 403 and 500. */
const CLUSTER_ERRORS: Record<string, string[]> = {
  'get /api/v1/clusters': [],
  'post /api/v1/clusters': ['409', '413', '415'],
  'post /api/v1/clusters/test': ['413', '415'],
  'get /api/v1/clusters/{name}': ['404'],
  'patch /api/v1/clusters/{name}': ['404', '409', '413', '415'],
  'delete /api/v1/clusters/{name}': ['404', '409'],
  'get /api/v1/clusters/{name}/namespaces': ['404', '502', '503'],
  'post /api/v1/clusters/{name}/shell': ['404', '413', '415', '502', '503'],
};

describe('OpenAPI document and the API without a management cluster', () => {
  let api: TestApi;
  let user: TestUser;
  beforeAll(async () => {
    api = await startTestApi();
    user = await signUp(api, 'user');
  });
  afterAll(async () => api?.close());

  it('is public, valid OpenAPI 3, and covers every route', async () => {
    const res = await api.call<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(
      'GET',
      '/api/v1/openapi.json',
    );
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    const result = await new Validator().validate(res.body as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    for (const [method, path] of ROUTES) {
      expect(res.body.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(Object.keys(res.body.paths).some((p) => p.startsWith('/api/auth'))).toBe(false);
  });

  it('documents the error answers of every /apps route with the {"error"} schema', async () => {
    const res = await api.call<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      'GET',
      '/api/v1/openapi.json',
    );
    const conflicts = ['sync', 'deploy', 'rollback', 'promote', 'clone', 'restart', 'approve', 'scale', 'adopt'];
    for (const [method, path] of ROUTES.filter(([, p]) => p.startsWith('/api/v1/apps'))) {
      const responses = res.body.paths[path]?.[method]?.responses ?? {};
      const expected = ['400', '401', '403', '500', '503'];
      if (method === 'post') expected.push('413', '415');
      if (path.includes('{name}')) expected.push('404');
      if (path === '/api/v1/apps' && method === 'post') expected.push('409');
      if (conflicts.some((c) => path.endsWith(`/${c}`))) expected.push('409');
      if (path.endsWith('/promote')) expected.push('502');
      for (const status of expected) {
        expect(responses[status], `${method} ${path} ${status}`).toMatchObject(ERROR_ANSWER);
      }
    }
  });

  it('documents every operations-loop route with its {"error"} answers', async () => {
    const res = await api.call<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      'GET',
      '/api/v1/openapi.json',
    );
    for (const [method, path] of OPS_ROUTES) {
      const responses = res.body.paths[path]?.[method]?.responses;
      expect(responses, `${method} ${path}`).toBeDefined();
      const expected = ['400', '401', '403', '500'];
      if (method === 'post' || method === 'patch') expected.push('413', '415');
      if (path.includes('{id}')) expected.push('404');
      if (path.endsWith('/approve') || path.endsWith('/reject') || path.endsWith('/acknowledge')) expected.push('409');
      for (const status of expected) {
        expect(responses?.[status], `${method} ${path} ${status}`).toMatchObject(ERROR_ANSWER);
      }
    }
  });

  it('documents the error answers of every /clusters route with the {"error"} schema', async () => {
    const res = await api.call<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      'GET',
      '/api/v1/openapi.json',
    );
    for (const [method, path] of ROUTES.filter(([, p]) => p.startsWith('/api/v1/clusters'))) {
      const responses = res.body.paths[path]?.[method]?.responses ?? {};
      for (const status of ['400', '401', '403', '500', ...(CLUSTER_ERRORS[`${method} ${path}`] ?? ['none'])]) {
        expect(responses[status], `${method} ${path} ${status}`).toMatchObject(ERROR_ANSWER);
      }
    }
  });

  it('documents the error answers of every /registries route with the {"error"} schema', async () => {
    const res = await api.call<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      'GET',
      '/api/v1/openapi.json',
    );
    for (const [method, path] of ROUTES.filter(([, p]) => p.startsWith('/api/v1/registries'))) {
      const responses = res.body.paths[path]?.[method]?.responses ?? {};
      const expected = ['401', '500'];
      if (!path.endsWith('/notifications')) expected.push('403');
      if (method === 'post' || method === 'patch') expected.push('400', '413', '415');
      if (path.includes('{id}') && !path.endsWith('/notifications')) expected.push('404');
      if (path === '/api/v1/registries' && method === 'post') expected.push('409');
      if (path === '/api/v1/registries/{id}' && method !== 'get') expected.push('409');
      for (const status of expected) {
        expect(responses[status], `${method} ${path} ${status}`).toMatchObject(ERROR_ANSWER);
      }
    }
  });

  it('names its schemas: the Error component is {"error": string}, answers and bodies are components', async () => {
    const res = await api.call<{
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
      paths: Record<
        string,
        Record<string, { requestBody?: { required: boolean }; responses: Record<string, unknown> }>
      >;
    }>('GET', '/api/v1/openapi.json');
    const { schemas } = res.body.components;
    expect(schemas['Error']).toMatchObject({
      type: 'object',
      required: ['error'],
      additionalProperties: false,
      properties: { error: { type: 'string' } },
    });
    for (const name of [
      'App',
      'AppStatus',
      'AppCreateRequest',
      'Team',
      'Incident',
      'Cluster',
      'SecretStore',
      'Webhook',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(Object.keys(schemas).some((n) => n.startsWith('def-'))).toBe(false);
    const app = res.body.paths['/api/v1/apps/{namespace}/{name}']?.['get']?.responses['200'];
    expect(app).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/App' } } } });
    // A body the server takes as absent (sync: none, {} or no body) is optional; one with required fields is not.
    expect(res.body.paths['/api/v1/apps/{namespace}/{name}/sync']?.['post']?.requestBody?.required).toBe(false);
    expect(res.body.paths['/api/v1/apps']?.['post']?.requestBody?.required).toBe(true);
  });

  it('answers 405 with Allow for a method a path does not serve, 404 for a path it does not serve', async () => {
    for (const [method, path, allow] of [
      ['PUT', '/api/v1/teams', 'GET, HEAD, POST'],
      ['GET', '/api/v1/mcp', 'POST'],
      ['TRACE', '/api/v1/apps/preview', 'POST'],
      ['PATCH', '/api/v1/teams/x/members/y', 'DELETE'],
    ] as const) {
      const res = await api.call(method, path, { cookie: user.cookie });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers['allow'], `${method} ${path}`).toBe(allow);
      expect(res.body).toEqual({ error: expect.stringContaining(method) });
    }
    expect((await api.call('PUT', '/api/v1/nothing-here', { cookie: user.cookie })).status).toBe(404);
  });

  it('answers 503 on every /apps route, with or without credentials', async () => {
    for (const [method, path] of ROUTES.filter(([, p]) => p.startsWith('/api/v1/apps'))) {
      const url = path.replace('{namespace}', 'web').replace('{name}', 'web');
      for (const cookie of [undefined, user.cookie]) {
        const res = await api.call(method.toUpperCase(), url, { ...(cookie ? { cookie } : {}) });
        expect(res.status, `${method} ${url}`).toBe(503);
        expect(res.body).toEqual({ error: expect.stringContaining('SVC_MGMT_KUBECONFIG') });
      }
    }
    expect((await api.call('GET', '/api/v1/auth/me', { cookie: user.cookie })).status).toBe(200);
  });

  it('speaks JSON only: other bodies get 415, unknown routes 404, both as {"error"}', async () => {
    const res = await api.call('POST', '/api/v1/auth/can-i', {
      cookie: user.cookie,
      body: 'permission=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: expect.any(String) });
    const missing = await api.call('GET', '/api/v1/nothing-here', { cookie: user.cookie });
    expect(missing).toMatchObject({ status: 404, body: { error: expect.any(String) } });
    expect((await api.call('GET', '/healthz')).status).toBe(200);
  });
});
