/**
 * Every write route refuses callers without the permission it needs (issue 23): the routes are read from the OpenAPI
 * document at run time (every POST, PUT, PATCH and DELETE operation), so a new route is covered without editing this
 * test, and a route whose use-case forgot its check fails here.
 *
 * Each operation is called with a valid request (path parameters naming real resources of org A, a body and query
 * built from the operation's own schemas, checked against them) twice:
 * - with a read-only API key of org A: 403 or 404, never 2xx;
 * - for operations on a resource (a path parameter), with an admin API key of org B: 403 or 404, never 2xx (another
 *   org's resource reads as absent).
 * A few operations are not writes of the org's resources and are listed in NOT_ORG_WRITES with why; READ_KEY_MAY
 * lists the writes a read-only key may make by design.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Credential, createOrg, mintKey, type OrgApi, signUp, signUpMember, startOrgApi } from './api-support.ts';

type Schema = Record<string, unknown>;
interface Operation {
  parameters?: Array<{ name: string; in: string; required?: boolean; schema: Schema }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** Operations that are not writes of the org's resources, and why (each is tested where it lives). */
const NOT_ORG_WRITES: Record<string, string> = {
  'post /api/v1/auth/can-i': 'a question about the caller’s own permissions; it writes nothing',
  'post /api/v1/auth/api-keys':
    'a key mints keys for its owner within its own ceilings (apikey:manage is in every ceiling); below, a read key cannot mint an admin key',
  'delete /api/v1/auth/api-keys/{id}':
    'a key manages its owner’s keys (api-auth.test.ts); another org’s key gets 404 below',
  'post /api/v1/auth/cli-login': 'a form post of svc’s own page for a signed-in browser (api-auth.test.ts)',
  'post /api/v1/mcp': 'the MCP endpoint; each tool runs its use-case with its own check (mcp.test.ts)',
  'post /api/v1/registries/{id}/notifications': 'authenticated by the registry’s notification token, not by a user',
  'post /api/v1/preview':
    'renders a ref of a repository for the caller’s readable Apps and dry-runs it (deployment:read); it writes nothing (api-app-preview.test.ts checks no object and no App status changed)',
  'post /api/v1/import':
    'a dry-run (the default) writes nothing; with apply each object is created in the caller’s own org through its own create use case, permission and audit included, and a refused one is a failed entry (api-import.test.ts)',
};

/** Writes a read-only key may make by design, and why; another org's caller is still refused on them. */
const READ_KEY_MAY: Record<string, string> = {
  'post /api/v1/clusters/{name}/shell':
    'a read key whose owner holds cluster:shell opens a view shell (src/auth/rbac.ts shellPowerOf; api-clusters.test.ts)',
};

const WRITES = ['post', 'put', 'patch', 'delete'];

// ajv-formats is CommonJS; under ESM its callable arrives as the `default` of the module namespace.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

/** Candidate strings for a pattern, tried in order; the first the schema accepts is used. */
const CANDIDATES = [
  'web',
  'a',
  'main',
  '1.0',
  'team/web',
  'https://git.example.com/web.git',
  'https://example.com',
  'registry.example.com',
  'registry.example.com/team/web',
  `sha256:${'0'.repeat(64)}`,
  '30s',
  '0',
  '1',
  'org',
  'a/b',
  'AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ',
];

/** Builds request parts from the document's schemas: examples first, else the smallest value they accept. */
class Sampler {
  readonly #document: Document;
  readonly #ajv: Ajv;
  readonly #compiled = new Map<Schema, ValidateFunction>();

  constructor(document: Document) {
    this.#document = document;
    this.#ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.#ajv);
  }

  valid(schema: Schema, value: unknown): boolean {
    let fn = this.#compiled.get(schema);
    if (!fn) {
      // The document's `#/components/schemas/…` references resolve against a root that holds the components.
      fn = this.#ajv.compile({ allOf: [schema], components: this.#document.components });
      this.#compiled.set(schema, fn);
    }
    return fn(value) as boolean;
  }

  #resolve(schema: Schema): Schema {
    const ref = schema['$ref'];
    if (typeof ref !== 'string') return schema;
    return this.#document.components.schemas[ref.replace('#/components/schemas/', '')] ?? {};
  }

  sample(input: Schema): unknown {
    const schema = this.#resolve(input);
    if ('example' in schema) return schema['example'];
    if (Array.isArray(schema['enum'])) return (schema['enum'] as unknown[])[0];
    for (const union of ['anyOf', 'oneOf'] as const) {
      const variants = schema[union] as Schema[] | undefined;
      if (!variants) continue;
      for (const v of variants) {
        const value = this.sample(v);
        if (this.valid(v, value)) return value;
      }
    }
    switch (schema['type']) {
      case 'object': {
        const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
        const required = (schema['required'] ?? []) as string[];
        const value = Object.fromEntries(required.map((k) => [k, this.sample(properties[k] ?? {})]));
        // A body that must change something (minProperties) gets optional fields, in order, until it is valid.
        for (const [k, property] of Object.entries(properties)) {
          if (Object.keys(value).length >= Number(schema['minProperties'] ?? 0)) break;
          value[k] = this.sample(property);
        }
        return value;
      }
      case 'array':
        return Array.from({ length: Number(schema['minItems'] ?? 0) }, () =>
          this.sample((schema['items'] ?? {}) as Schema),
        );
      case 'integer':
      case 'number':
        return Number(schema['minimum'] ?? 0);
      case 'boolean':
        return false;
      case 'string': {
        const fit = CANDIDATES.find((c) => this.valid(schema, c));
        return fit ?? 'x'.repeat(Math.max(1, Number(schema['minLength'] ?? 1)));
      }
      default:
        return {};
    }
  }
}

describe('every write route refuses callers without its permission', () => {
  let env: OrgApi;
  let document: Document;
  let readKey: Credential;
  let otherOrgKey: Credential;
  /** Path parameter values naming org A's resources, by the path's resource (`teams`, `auth/api-keys`, …). */
  const resources: Record<string, Record<string, string>> = {};

  /** The resource a path names: `/api/v1/auth/api-keys/{id}` → `auth/api-keys`, `/api/v1/teams/{id}/…` → `teams`. */
  function resourceOf(path: string): string {
    const parts = path.replace('/api/v1/', '').split('/');
    return parts[0] === 'auth' ? `auth/${parts[1]}` : (parts[0] ?? '');
  }

  async function created<T = Record<string, unknown>>(method: string, url: string, body: unknown): Promise<T> {
    const res = await env.api.call<T>(method, url, { cookie: env.owner.cookie, body });
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  beforeAll(async () => {
    env = await startOrgApi('guard');
    const { api, owner, orgId, suffix } = env;
    document = (await api.call<Document>('GET', '/api/v1/openapi.json')).body as unknown as Document;
    const member = await signUpMember(api, owner, orgId, 'member', 'member');
    readKey = { key: (await mintKey(api, { cookie: owner.cookie }, { role: 'read' })).key };
    const ownerKey = await mintKey(api, { cookie: owner.cookie }, { role: 'admin' });
    const stranger = await signUp(api, 'stranger');
    await createOrg(api, stranger, `guard-other-${suffix}`);
    otherOrgKey = { key: (await mintKey(api, { cookie: stranger.cookie }, { role: 'admin' })).key };

    const server = /server:\s*(\S+)/.exec(readFileSync(inject('mgmtKubeconfig'), 'utf8'))?.[1] ?? '';
    const team = await created<{ id: string }>('POST', '/api/v1/teams', { name: 'guarded' });
    await created('POST', `/api/v1/teams/${team.id}/members`, { user_id: member.id });
    const binding = await created<{ id: string }>('POST', '/api/v1/role-bindings', {
      subject_type: 'team',
      subject_id: team.id,
      scope: 'org',
      level: 'read',
    });
    const webhook = await created<{ id: string }>('POST', '/api/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['sync.failed'],
    });
    const incident = await created<{ id: string }>('POST', '/api/v1/incidents', { title: 'guarded' });
    await created('POST', '/api/v1/clusters', { name: 'guarded', server_url: server });
    const registry = await created<{ id: string }>('POST', '/api/v1/registries', {
      name: 'guarded',
      host: '127.0.0.1:5999',
      insecure: true,
    });
    const store = await created<{ id: string }>('POST', '/api/v1/secret-stores', {
      name: 'guarded',
      type: 'eso',
      provider: 'eso',
      config: { storeName: 'guarded' },
    });
    const namespace = `guard-${suffix}`;
    await created('POST', '/api/v1/apps', {
      name: 'guarded',
      namespace,
      source: { type: 'Git', git: { repoURL: 'https://git.example.com/guarded.git' } },
    });
    const sessions = await api.call<{ sessions: Array<{ id: string }> }>('GET', '/api/v1/auth/sessions', {
      cookie: owner.cookie,
    });
    Object.assign(resources, {
      teams: { id: team.id, userId: member.id },
      'role-bindings': { id: binding.id },
      webhooks: { id: webhook.id },
      incidents: { id: incident.id },
      clusters: { name: 'guarded' },
      registries: { id: registry.id },
      'secret-stores': { id: store.id },
      apps: { namespace, name: 'guarded' },
      'auth/api-keys': { id: ownerKey.id },
      'auth/sessions': { id: sessions.body.sessions[0]?.id ?? 'none' },
    });
  });

  afterAll(async () => env?.api.close());

  /** A valid request for `method path`: its URL and JSON body. */
  function requestFor(sampler: Sampler, path: string, operation: Operation): { url: string; body?: unknown } {
    const known = resources[resourceOf(path)] ?? {};
    let url = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(known[name] ?? 'unknown'));
    const query = (operation.parameters ?? []).filter((p) => p.in === 'query' && p.required);
    if (query.length > 0) {
      url += `?${new URLSearchParams(query.map((p): [string, string] => [p.name, String(sampler.sample(p.schema))]))}`;
    }
    const schema = operation.requestBody?.content['application/json']?.schema;
    if (!schema) return { url };
    const body = sampler.sample(schema);
    expect(sampler.valid(schema, body), `a valid body for ${path} (add an example to its schema)`).toBe(true);
    return { url, body };
  }

  it('reads its write routes from the document', () => {
    const writes = Object.entries(document.paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => WRITES.includes(m))
        .map((m) => `${m} ${path}`),
    );
    // Every write route of the API is in the document (api-openapi.test.ts checks the list); 51 when this was written.
    expect(writes.length).toBeGreaterThanOrEqual(51);
  });

  it('refuses every write of a read-only API key (403 or 404), and of another org’s admin on a resource', async () => {
    const sampler = new Sampler(document);
    const outcomes: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const label = `${method} ${path}`;
        if (!WRITES.includes(method) || label in NOT_ORG_WRITES) continue;
        const { url, body } = requestFor(sampler, path, operation);
        const callers: Array<[string, Credential]> = label in READ_KEY_MAY ? [] : [['read key', readKey]];
        if (path.includes('{')) callers.push(['other org', otherOrgKey]);
        for (const [who, cred] of callers) {
          const res = await env.api.call(method.toUpperCase(), url, {
            ...cred,
            ...(body === undefined ? {} : { body }),
          });
          outcomes.push(`${label} (${who}): ${res.status}`);
          expect([403, 404], `${label} as ${who}: ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
        }
      }
    }
    console.log(`write guard: ${outcomes.length} refused calls\n  ${outcomes.join('\n  ')}`);
  });

  it('keeps a read key inside its ceiling where it may mint keys', async () => {
    const res = await env.api.call('POST', '/api/v1/auth/api-keys', {
      ...readKey,
      body: { name: `guard-${randomBytes(2).toString('hex')}`, role: 'admin' },
    });
    expect(res.status).toBe(403);
  });
});
