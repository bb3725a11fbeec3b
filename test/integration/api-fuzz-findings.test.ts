/**
 * What the API fuzzer (api-fuzz.test.ts, schemathesis) found, kept as small regression tests that run without it:
 * each answer is the contract's `{"error": string}` with a status the route's OpenAPI entry documents, and its body
 * conforms to the documented schema.
 */
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKey, type OrgApi, startOrgApi } from './api-support.ts';

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, any> }>>;
  components: { schemas: Record<string, unknown> };
};

describe('API fuzzer findings', () => {
  let org: OrgApi;
  let doc: Doc;
  let key = '';
  const ajv = new Ajv({ strict: false, allErrors: true });

  /** Asserts that `status` is documented for the operation and `body` matches its JSON schema. */
  function expectDocumented(method: string, path: string, status: number, body: unknown): void {
    const response = doc.paths[path]?.[method]?.responses[String(status)];
    expect(response, `${method} ${path} documents ${status}`).toBeDefined();
    const schema = response.content?.['application/json']?.schema;
    expect(schema, `${method} ${path} ${status} has a JSON schema`).toBeDefined();
    // The document's `#/components/schemas/…` references resolve against a root that holds the components.
    const validate = ajv.compile({ allOf: [schema], components: doc.components });
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  }

  beforeAll(async () => {
    org = await startOrgApi('fuzzfind');
    doc = (await org.api.call<Doc>('GET', '/api/v1/openapi.json')).body;
    key = (await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'admin' })).key;
  });
  afterAll(async () => org?.api.close());

  it('an App path parameter the apiserver would refuse answers 400, not a 502 from the cluster', async () => {
    for (const url of ['/api/v1/apps/shop/%25', '/api/v1/apps/Shop/web', '/api/v1/apps/shop/web%20x/history']) {
      const res = await org.api.call('GET', url, { key });
      expect(res.status, url).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(/must match the pattern/) });
    }
    const res = await org.api.call('DELETE', '/api/v1/apps/shop/%25', { key });
    expect(res.status).toBe(400);
    expectDocumented('delete', '/api/v1/apps/{namespace}/{name}', 400, res.body);
  });

  it("a path parameter over the router's limit answers 400 {error}, not Fastify's 414 body", async () => {
    const res = await org.api.call('GET', `/api/v1/clusters/${'a'.repeat(300)}`, { key });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'a path parameter is too long' });
    expectDocumented('get', '/api/v1/clusters/{name}', 400, res.body);
  });

  it('a path that does not decode answers 400 {error}', async () => {
    const res = await org.api.call('GET', '/api/v1/clusters/%E0%A4%A', { key });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('auth, audit and role-binding routes document the errors they answer', async () => {
    const cases: Array<[string, string, string, number, unknown?]> = [
      ['get', '/api/v1/auth/sessions', '/api/v1/auth/sessions', 403],
      ['delete', '/api/v1/auth/sessions/{id}', '/api/v1/auth/sessions/nope', 403],
      ['delete', '/api/v1/auth/api-keys/{id}', '/api/v1/auth/api-keys/nope', 404],
      ['post', '/api/v1/auth/can-i', '/api/v1/auth/can-i', 400, {}],
      ['get', '/api/v1/audit', '/api/v1/audit?limit=x', 400],
      ['post', '/api/v1/role-bindings', '/api/v1/role-bindings', 400, {}],
      [
        'post',
        '/api/v1/role-bindings',
        '/api/v1/role-bindings',
        404,
        { subject_type: 'team', subject_id: 'nope', scope: 'org', level: 'read' },
      ],
      ['delete', '/api/v1/role-bindings/{id}', '/api/v1/role-bindings/nope', 404],
      ['get', '/api/v1/secret-stores/{id}', `/api/v1/secret-stores/${'0'.repeat(101)}`, 400],
    ];
    for (const [method, path, url, status, body] of cases) {
      const res = await org.api.call(method.toUpperCase(), url, { key, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${url}`).toBe(status);
      expectDocumented(method, path, status, res.body);
    }
    const unauthenticated = await org.api.call('GET', '/api/v1/auth/me');
    expect(unauthenticated.status).toBe(401);
    expectDocumented('get', '/api/v1/auth/me', 401, unauthenticated.body);
  });

  it('the MCP endpoint serves POST only: GET and DELETE answer 405 with Allow, as any method a path does not serve', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await org.api.call(method, '/api/v1/mcp', { key });
      expect(res.status, method).toBe(405);
      expect(res.headers['allow']).toBe('POST');
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    expect(doc.paths['/api/v1/mcp']).toEqual({ post: expect.any(Object) });
  });
});
