/**
 * The MCP endpoint (/api/v1/mcp) driven by the official MCP TypeScript SDK's client (@modelcontextprotocol/client,
 * a real client no one here wrote) over Streamable HTTP against a real API server on the management cluster:
 * initialize; tools/list for a read key, a deployment-scoped sync key, an admin key, a Viewer's admin key and a key
 * with a tool allowlist (exact tool sets); a sync through the tool is written and audited as the key's owner with
 * the tool name; calls outside the key's tools are JSON-RPC errors, calls outside its scope are refused; another
 * org's Apps are out of reach; no credential appears in any tool result.
 */
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppResources,
  auditEntries,
  createOrg,
  mintKey,
  signUp,
  signUpMember,
  startOrgApi,
  type TestApi,
  type TestUser,
} from './api-support.ts';
import { connectMcp, type ToolResult } from './mcp-support.ts';

type Json = Record<string, unknown>;

const READ_TOOLS = [
  'app_list',
  'app_get',
  'app_status',
  'app_events',
  'app_history',
  'app_approvals',
  'app_windows',
  'app_diff',
  'preview',
  'app_logs',
  'import_dry_run',
];
const SYNC_TOOLS = [
  'app_sync',
  'app_deploy',
  'app_rollback',
  'app_restart',
  'app_approve',
  'app_terminate',
  'app_release',
];
const SECRET_PASSWORD = 's3cret-pass-9f2c';

describe('MCP endpoint through the official SDK client', () => {
  let api: TestApi;
  let kube: AppResources;
  let owner: TestUser;
  let ns: string;
  let d: string;
  let d2: string;
  let base: string;
  const keys: Record<string, string> = {};
  const clients: Client[] = [];

  async function connect(key: string): Promise<Client> {
    const { client } = await connectMcp(base, key);
    clients.push(client);
    return client;
  }
  async function toolNames(key: string): Promise<string[]> {
    const { tools } = await (await connect(key)).listTools();
    return tools.map((t) => t.name);
  }
  async function call(client: Client, name: string, args: Json = {}): Promise<ToolResult> {
    return (await client.callTool({ name, arguments: args })) as ToolResult;
  }
  /** The names of the Apps an app_list result shows. */
  const namesIn = (result: ToolResult) => ((result.structuredContent?.['apps'] ?? []) as Json[]).map((a) => a['name']);

  beforeAll(async () => {
    const started = await startOrgApi('mcp');
    ({ api, kube, owner, orgNs: ns } = started);
    d = `mcp-a-${started.suffix}`;
    d2 = `mcp-b-${started.suffix}`;
    for (const [name, namespace] of [
      ['web', d],
      ['other', d2],
    ]) {
      const res = await api.call('POST', '/api/v1/apps', {
        cookie: owner.cookie,
        body: {
          name,
          namespace,
          source: { type: 'Git', git: { repoURL: `https://bot:${SECRET_PASSWORD}@git.example.test/${name}.git` } },
        },
      });
      expect(res.status).toBe(201);
    }
    const viewer = await signUpMember(api, owner, started.orgId, 'viewer', 'viewer');
    keys['read'] = (await mintKey(api, { cookie: owner.cookie }, { role: 'read' })).key;
    keys['sync'] = (
      await mintKey(api, { cookie: owner.cookie }, { role: 'sync', scope: 'deployment', scope_id: `/${d}` })
    ).key;
    keys['admin'] = (await mintKey(api, { cookie: owner.cookie }, { role: 'admin' })).key;
    keys['viewerAdmin'] = (await mintKey(api, { cookie: viewer.cookie }, { role: 'admin' })).key;
    keys['allow'] = (
      await mintKey(api, { cookie: owner.cookie }, { name: 'agent', role: 'sync', tools: ['app_status', 'app_sync'] })
    ).key;
    await api.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await api?.close();
  });

  it('initializes: the server names itself and offers tools', async () => {
    const client = await connect(keys['read'] as string);
    expect(client.getServerVersion()).toMatchObject({ name: 'svc', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  it('serves a 2025-era client too (initialize, then tools/list, over plain JSON-RPC posts)', async () => {
    const post = async (body: Json) => {
      const res = await fetch(`${base}/api/v1/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys['allow']}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      // A JSON body, or an SSE stream whose data lines carry the JSON-RPC messages.
      const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
      return { status: res.status, body: JSON.parse(json) as Json };
    };
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    expect(init.status).toBe(200);
    expect(init.body).toMatchObject({ id: 1, result: { serverInfo: { name: 'svc' }, protocolVersion: '2025-06-18' } });
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const tools = (list.body['result'] as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(tools).toEqual(['app_status', 'app_sync']);
  });

  it('lists exactly the tools each key may use', async () => {
    expect(await toolNames(keys['read'] as string)).toEqual([
      ...READ_TOOLS,
      'repository_list',
      'repository_charts',
      'audit_list',
      'health_check_list',
      'catalog_list',
      'delivery_windows',
      'appset_list',
      'appset_get',
      'can_i',
    ]);
    // Scoped to one deployment: no org-wide audit log; sync tools, since it may sync there.
    expect(await toolNames(keys['sync'] as string)).toEqual([...READ_TOOLS, ...SYNC_TOOLS, 'can_i']);
    expect(await toolNames(keys['admin'] as string)).toEqual([
      ...READ_TOOLS,
      ...SYNC_TOOLS,
      'app_freeze',
      'app_unfreeze',
      'app_create_helm_chart',
      'app_create_from_catalog',
      'import_confirm',
      'import_undo',
      'repository_list',
      'repository_charts',
      'audit_list',
      'health_check_list',
      'catalog_list',
      'delivery_windows',
      'appset_list',
      'appset_get',
      'can_i',
    ]);
    // An admin ceiling grants nothing the owner lacks: a Viewer reads (repositories and health checks too), and has no
    // audit:read.
    expect(await toolNames(keys['viewerAdmin'] as string)).toEqual([
      ...READ_TOOLS,
      'repository_list',
      'repository_charts',
      'health_check_list',
      'catalog_list',
      'delivery_windows',
      'appset_list',
      'appset_get',
      'can_i',
    ]);
    expect(await toolNames(keys['allow'] as string)).toEqual(['app_status', 'app_sync']);
  });

  it('describes each tool with an input schema that names its arguments', async () => {
    const { tools } = await (await connect(keys['admin'] as string)).listTools();
    const rollback = tools.find((t) => t.name === 'app_rollback');
    expect(rollback?.inputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['namespace', 'name', 'revision']),
    });
    // The chart App's sync policy takes the auto-rollback delay, validated as the CRD validates it.
    expect(tools.find((t) => t.name === 'app_create_helm_chart')?.inputSchema).toMatchObject({
      properties: { auto_rollback: { type: 'string', pattern: '^([0-9]{1,6}(ms|s|m|h))+$' } },
    });
    expect(tools.find((t) => t.name === 'app_get')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((t) => t.name === 'app_sync')?.annotations).toMatchObject({ readOnlyHint: false });
  });

  it('syncs through the tool as the key owner: spec.operation and an audit entry naming the tool', async () => {
    const client = await connect(keys['sync'] as string);
    const result = await call(client, 'app_sync', { namespace: d, name: 'web' });
    expect(result.isError).toBeFalsy();
    const opId = result.structuredContent?.['operation_id'];
    expect(opId).toEqual(expect.any(String));
    expect(JSON.parse(result.content[0]?.text ?? '{}')).toMatchObject({ operation_id: opId, name: 'web' });
    const op = (await kube.get(ns, 'web'))?.spec.operation;
    expect(op).toMatchObject({ kind: 'Sync', id: opId, triggeredBy: owner.id });
    const [entry] = await auditEntries(api, owner, 'app.sync', 'web');
    expect(entry).toMatchObject({
      user_id: owner.id,
      resource_type: 'app',
      details: { operation_id: opId, tool: 'app_sync', namespace: d },
    });
    // A second sync while the first is pending: the service's 409, as a tool error the agent can read.
    const again = await call(client, 'app_sync', { namespace: d, name: 'web' });
    expect(again.isError).toBe(true);
    expect(again.structuredContent).toMatchObject({ status: 409, error: expect.stringMatching(/pending/) });
  });

  it('refuses tools outside the key with a JSON-RPC error, and Apps outside its scope with a 403', async () => {
    // JSON-RPC error -32602 (invalid params: the key has no such tool), not a tool result.
    const refused = (tool: string) => ({ code: -32602, message: expect.stringContaining(`Tool ${tool} not found`) });
    await expect(
      call(await connect(keys['read'] as string), 'app_sync', { namespace: d, name: 'web' }),
    ).rejects.toMatchObject(refused('app_sync'));
    await expect(
      call(await connect(keys['allow'] as string), 'app_get', { namespace: d, name: 'web' }),
    ).rejects.toMatchObject(refused('app_get'));
    await expect(
      call(await connect(keys['sync'] as string), 'app_freeze', { namespace: d, name: 'web' }),
    ).rejects.toMatchObject(refused('app_freeze'));
    const outside = await call(await connect(keys['sync'] as string), 'app_restart', { namespace: d2, name: 'other' });
    expect(outside).toMatchObject({ isError: true, structuredContent: { status: 403 } });
    expect((await kube.get(ns, 'other'))?.spec.operation).toBeUndefined();
    expect(await auditEntries(api, owner, 'app.restart', 'other')).toEqual([]);
  });

  it('validates arguments against the tool schema', async () => {
    const client = await connect(keys['admin'] as string);
    const bad = await call(client, 'app_get', { namespace: d });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/name is required/);
    const unknown = await call(client, 'app_get', { namespace: d, name: 'web', extra: 1 });
    expect(unknown.isError).toBe(true);
  });

  it('answers can_i with the same evaluation as POST /auth/can-i', async () => {
    const client = await connect(keys['sync'] as string);
    const here = await call(client, 'can_i', { permission: 'deployment:sync', scope: 'deployment', scope_id: `/${d}` });
    const there = await call(client, 'can_i', {
      permission: 'deployment:sync',
      scope: 'deployment',
      scope_id: `/${d2}`,
    });
    expect(here.structuredContent).toEqual({ allowed: true });
    expect(there.structuredContent).toEqual({ allowed: false });
  });

  it('keeps orgs apart: another org’s Apps are neither listed nor readable', async () => {
    const stranger = await signUp(api, 'stranger');
    await createOrg(api, stranger, `mcp-other-${d.slice(-6)}`);
    const created = await api.call('POST', '/api/v1/apps', {
      cookie: stranger.cookie,
      body: {
        name: 'secret-app',
        namespace: d,
        source: { type: 'Git', git: { repoURL: 'https://git.example.test/x.git' } },
      },
    });
    expect(created.status).toBe(201);
    const theirs = (await mintKey(api, { cookie: stranger.cookie }, { role: 'admin' })).key;
    const client = await connect(keys['admin'] as string);
    const list = await call(client, 'app_list');
    expect(namesIn(list).sort()).toEqual(['other', 'web']);
    const read = await call(client, 'app_get', { namespace: d, name: 'secret-app' });
    expect(read).toMatchObject({ isError: true, structuredContent: { status: 404 } });
    const theirClient = await connect(theirs);
    const theirList = await call(theirClient, 'app_list');
    expect(namesIn(theirList)).toEqual(['secret-app']);
    const sync = await call(theirClient, 'app_sync', { namespace: d, name: 'web' });
    expect(sync).toMatchObject({ isError: true, structuredContent: { status: 404 } });
  });

  it('returns no credential in any tool result', async () => {
    const client = await connect(keys['admin'] as string);
    const results = [
      await call(client, 'app_list'),
      await call(client, 'app_get', { namespace: d, name: 'web' }),
      await call(client, 'app_status', { namespace: d, name: 'web' }),
      await call(client, 'app_events', { namespace: d, name: 'web' }),
      await call(client, 'app_history', { namespace: d, name: 'web' }),
      await call(client, 'audit_list', { limit: 200 }),
      await call(client, 'app_get', { namespace: d, name: 'nope' }),
    ];
    const text = JSON.stringify(results);
    expect(text).not.toContain(SECRET_PASSWORD);
    for (const key of Object.values(keys)) expect(text).not.toContain(key);
    expect(text).not.toMatch(/svc_[A-Za-z0-9_-]{16,}/);
    const app = results[1]?.structuredContent as { source: { git: { repoURL: string } } };
    expect(app.source.git.repoURL).toBe('https://bot:***@git.example.test/web.git');
  });

  it('admits API keys only; a key with a tool allowlist works on /mcp and nowhere else', async () => {
    const noAuth = await fetch(`${base}/api/v1/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noAuth.status).toBe(401);
    expect(await noAuth.json()).toEqual({ error: expect.any(String) });
    const session = await api.call('POST', '/api/v1/mcp', {
      cookie: owner.cookie,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(session.status).toBe(403);
    const rest = await api.call('GET', `/api/v1/apps/${d}/web`, { key: keys['allow'] as string });
    expect(rest.status).toBe(403);
    expect(rest.body).toEqual({ error: expect.stringMatching(/allowlist/) });
    const listed = await api.call<{ api_keys: Json[] }>('GET', '/api/v1/auth/api-keys', { cookie: owner.cookie });
    expect(listed.body.api_keys.find((k) => k['name'] === 'agent')).toMatchObject({
      tools: ['app_status', 'app_sync'],
      role: 'sync',
    });
    expect(listed.body.api_keys.find((k) => k['role'] === 'admin')).toMatchObject({ tools: null });
  });

  it('refuses unknown tool names in an allowlist with 400', async () => {
    const res = await api.call('POST', '/api/v1/auth/api-keys', {
      cookie: owner.cookie,
      body: { name: 'x', role: 'read', tools: ['app_status', 'rm_rf'] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/tools/) });
  });
});
