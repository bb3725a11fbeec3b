/**
 * /registries over HTTP against real registries (Debian docker-registry with htpasswd) and the real management
 * cluster: create, list, read, update, delete and test; passwords sealed at rest (the raw row holds `enc:v1:` and
 * never the password) and never returned; `registry:manage` session-only (API keys 403) and refused to Viewers;
 * every bad input answered 400 or 409 with `{"error"}`; a registry that an App names cannot be deleted or renamed
 * (409 naming the App); every write audited `registry.create/update/delete/test`.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEALED_PREFIX } from '../../src/secrets/seal.ts';
import { freePort, type Registry, startRegistry } from '../harness/index.ts';
import { auditEntries, mintKey, type OrgApi, signUpMember, startOrgApi, type TestUser } from './api-support.ts';

type Json = Record<string, unknown>;
const PASSWORD = 'pa55-word-never-shown';

describe('registries API', () => {
  let org: OrgApi;
  let viewer: TestUser;
  let registry: Registry;
  const call = <T = Json>(method: string, url: string, body?: unknown, cred: { cookie?: string; key?: string } = {}) =>
    org.api.call<T>(method, url, {
      ...(cred.cookie || cred.key ? cred : { cookie: org.owner.cookie }),
      ...(body === undefined ? {} : { body }),
    });
  const rawRows = () => {
    const db = org.api.database;
    if (db.kind !== 'sqlite') throw new Error('this file reads the SQLite row');
    const sqlite = new Database(db.path, { readonly: true });
    try {
      return sqlite.prepare('select * from registry').all() as Json[];
    } finally {
      sqlite.close();
    }
  };

  beforeAll(async () => {
    registry = await startRegistry({ htpasswd: { user: 'ci', password: PASSWORD } });
    org = await startOrgApi('regs');
    viewer = await signUpMember(org.api, org.owner, org.orgId, 'viewer', 'viewer');
  });
  afterAll(async () => {
    await org?.api.close();
    await registry?.stop();
  });

  let id = '';

  it('creates a registry (201, untested) with a notification token shown once; the password is sealed at rest', async () => {
    const res = await call('POST', '/api/v1/registries', {
      name: 'local',
      host: registry.host,
      insecure: true,
      username: 'ci',
      password: PASSWORD,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'local',
      host: registry.host,
      insecure: true,
      username: 'ci',
      has_password: true,
      status: 'untested',
      notification_token: expect.stringMatching(/^svcrn_/),
    });
    id = String(res.body['id']);
    expect(res.body['notification_url']).toBe(`http://svc.test/api/v1/registries/${id}/notifications`);
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    const [row] = rawRows();
    expect(String(row?.['password'])).toMatch(new RegExp(`^${SEALED_PREFIX}`));
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
    expect(JSON.stringify(row)).not.toContain(String(res.body['notification_token']));
    const audit = await auditEntries(org.api, org.owner, 'registry.create', 'local');
    expect(audit[0]).toMatchObject({ user_id: org.owner.id, resource_type: 'registry', resource_id: id });
    expect(JSON.stringify(audit)).not.toContain(PASSWORD);
  });

  it('lists and reads registries (registry:read, Viewers too) without any credential', async () => {
    const list = await call<{ registries: Json[] }>('GET', '/api/v1/registries', undefined, { cookie: viewer.cookie });
    expect(list.status).toBe(200);
    expect(list.body.registries.map((r) => r['name'])).toEqual(['local']);
    const one = await call('GET', `/api/v1/registries/${id}`, undefined, { cookie: viewer.cookie });
    expect(one).toMatchObject({ status: 200, body: { id, name: 'local', has_password: true } });
    for (const body of [list.body, one.body]) {
      expect(JSON.stringify(body)).not.toContain(PASSWORD);
      expect(JSON.stringify(body)).not.toContain('notification_token');
    }
    expect((await call('GET', '/api/v1/registries/reg_nope')).status).toBe(404);
  });

  it('tests saved and unsaved registries: connected with good credentials, errorClass auth with bad ones', async () => {
    const saved = await call('POST', `/api/v1/registries/${id}/test`);
    expect(saved).toMatchObject({
      status: 200,
      body: { status: 'connected', latency: expect.any(Number), details: { authenticated: true } },
    });
    expect((await call('GET', `/api/v1/registries/${id}`)).body).toMatchObject({
      status: 'connected',
      last_tested_at: expect.any(String),
    });
    const bad = await call('POST', '/api/v1/registries/test', {
      host: registry.host,
      insecure: true,
      username: 'ci',
      password: 'wrong',
    });
    expect(bad).toMatchObject({ status: 200, body: { status: 'error', errorClass: 'auth' } });
    const closed = await call('POST', '/api/v1/registries/test', {
      host: `127.0.0.1:${await freePort()}`,
      insecure: true,
    });
    expect(closed).toMatchObject({ status: 200, body: { status: 'error', errorClass: 'connect' } });
    const audit = await auditEntries(org.api, org.owner, 'registry.test', 'local');
    expect(audit[0]?.['details']).toMatchObject({ saved: true, status: 'connected' });
    const unsaved = await auditEntries(org.api, org.owner, 'registry.test', registry.host);
    expect(unsaved[0]?.['details']).toMatchObject({ saved: false, status: 'error', error_class: 'auth' });
  });

  it('updates a registry: omitted fields stay, a new password is sealed again, the status is untested again', async () => {
    const before = rawRows()[0]?.['password'];
    const res = await call('PATCH', `/api/v1/registries/${id}`, { password: `${PASSWORD}-2`, insecure: true });
    expect(res).toMatchObject({ status: 200, body: { name: 'local', username: 'ci', status: 'untested' } });
    expect(res.body['notification_token']).toBeUndefined();
    const after = rawRows()[0]?.['password'];
    expect(after).not.toBe(before);
    expect(String(after)).toMatch(new RegExp(`^${SEALED_PREFIX}`));
    expect(JSON.stringify(rawRows())).not.toContain(`${PASSWORD}-2`);
    const rotated = await call('PATCH', `/api/v1/registries/${id}`, { rotate_notification_token: true });
    expect(rotated.body['notification_token']).toMatch(/^svcrn_/);
    const audit = await auditEntries(org.api, org.owner, 'registry.update', 'local');
    expect(audit.map((e) => e['details'])).toEqual([
      { fields: ['notification_token'] },
      { fields: ['password', 'insecure'] },
    ]);
    expect(JSON.stringify(audit)).not.toContain(PASSWORD);
    await call('PATCH', `/api/v1/registries/${id}`, { password: PASSWORD });
  });

  it('refuses registry:manage to API keys (even admin keys) and Viewers, writing nothing', async () => {
    const admin = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'admin' });
    const attempts: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/registries', { name: 'keyed', host: 'registry.example.com' }],
      ['PATCH', `/api/v1/registries/${id}`, { name: 'renamed' }],
      ['DELETE', `/api/v1/registries/${id}`, undefined],
      ['POST', '/api/v1/registries/test', { host: 'registry.example.com' }],
      ['POST', `/api/v1/registries/${id}/test`, undefined],
    ];
    for (const [method, url, body] of attempts) {
      const byKey = await call(method, url, body, { key: admin.key });
      expect(byKey.status, `${method} ${url} by key`).toBe(403);
      expect(byKey.body).toEqual({ error: expect.any(String) });
      expect((await call(method, url, body, { cookie: viewer.cookie })).status, `${method} ${url} by viewer`).toBe(403);
    }
    // Reading is not session-only.
    expect((await call('GET', '/api/v1/registries', undefined, { key: admin.key })).status).toBe(200);
    expect((await call<{ registries: Json[] }>('GET', '/api/v1/registries')).body.registries).toHaveLength(1);
    expect((await org.api.call('GET', '/api/v1/registries')).status).toBe(401);
  });

  it('answers every bad input with 400, 409 or 422 and {"error"}, writing nothing', async () => {
    const before = JSON.stringify(rawRows());
    const bad: Array<[number, unknown]> = [
      [400, {}],
      [400, { name: 'x' }],
      [400, { name: 'Bad_Name', host: 'registry.example.com' }],
      [400, { name: 'x', host: 'https://registry.example.com' }],
      [400, { name: 'x', host: 'registry.example.com/path' }],
      [400, { name: 'x', host: 'registry.example.com:99999' }],
      // The document accepts these; the outbound policy, DNS and the rule between two fields do not (422).
      [422, { name: 'x', host: '169.254.169.254' }],
      [422, { name: 'x', host: '0.0.0.0:5000' }],
      [422, { name: 'x', host: 'no-such-host.invalid' }],
      [422, { name: 'x', host: 'registry.example.com', username: 'only-user' }],
      [422, { name: 'x', host: 'registry.example.com', password: 'only-password' }],
      [400, { name: 'x', host: 'registry.example.com', ca: 'not a certificate' }],
      [400, { name: 'x', host: 'registry.example.com', insecure: 'yes' }],
      [400, { name: 'x', host: 'registry.example.com', color: 'red' }],
      [409, { name: 'local', host: registry.host, insecure: true }],
    ];
    for (const [status, body] of bad) {
      const res = await call('POST', '/api/v1/registries', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body, JSON.stringify(body)).toEqual({ error: expect.any(String) });
    }
    for (const body of [{}, { name: 'Bad!' }, { host: 'http://x' }, { nope: 1 }]) {
      const res = await call('PATCH', `/api/v1/registries/${id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    const notJson = await org.api.call('POST', '/api/v1/registries', {
      cookie: org.owner.cookie,
      body: '<name>x</name>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(notJson.status).toBe(415);
    expect(JSON.stringify(rawRows())).toBe(before);
  });

  it('refuses to delete or rename a registry an App names (409 naming it), then deletes it once unused', async () => {
    const app = await call('POST', '/api/v1/apps', {
      name: 'uses-local',
      namespace: `web-${org.suffix}`,
      source: { type: 'Image', image: { registryRef: 'local', repository: 'team/web', tag: '1' } },
    });
    expect(app.status).toBe(201);
    const del = await call('DELETE', `/api/v1/registries/${id}`);
    expect(del).toMatchObject({ status: 409, body: { error: expect.stringContaining('uses-local') } });
    const rename = await call('PATCH', `/api/v1/registries/${id}`, { name: 'other' });
    expect(rename).toMatchObject({ status: 409, body: { error: expect.stringContaining('uses-local') } });
    expect((await call('DELETE', `/api/v1/apps/web-${org.suffix}/uses-local`)).status).toBe(200);
    const ok = await call('DELETE', `/api/v1/registries/${id}`);
    expect(ok).toMatchObject({ status: 200, body: { deleted: true, id } });
    expect(rawRows()).toEqual([]);
    expect((await call('DELETE', `/api/v1/registries/${id}`)).status).toBe(404);
    expect(await auditEntries(org.api, org.owner, 'registry.delete', 'local')).toHaveLength(1);
  });
});
