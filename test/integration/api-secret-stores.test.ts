/**
 * /secret-stores (contract §2.7, §4.4) on a real API server, the harness's management cluster and the harness's
 * OpenBao: the providers listing, create/get/list/patch/delete with credentials sealed (`enc:v1:`) and never
 * returned, the 400s and 409s, session-only management, audit entries, tests that set connected / lastTestedAt /
 * credentialsExpireAt from the token's TTL (token and AppRole), references counted from real App resources (Git
 * `decryption.storeRef`, image `env.store`) with delete and rename refused while used, the per-user test rate limit,
 * and the server's fetch side of the internal channel (KV v2 values; a missing key and a KV v1 mount named).
 */
import { randomBytes } from 'node:crypto';
import { generateX25519Identity } from 'age-encryption';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyObject } from '../../src/kube/index.ts';
import { workloadEnv } from '../../src/render/env-store.ts';
import { openStore } from '../../src/store/database.ts';
import { type OpenBao, startOpenBao } from '../harness/index.ts';
import { auditEntries, mintKey, type OrgApi, signUpMember, startOrgApi, type TestUser } from './api-support.ts';
import { deleteNamespaces } from './operator-support.ts';

type Json = Record<string, unknown>;
const TEST_BURST = 8;

describe('secret stores API', () => {
  let org: OrgApi;
  let bao: OpenBao;
  let viewer: TestUser;
  let ageKey: string;
  const path = '/api/v1/secret-stores';

  beforeAll(async () => {
    [org, bao] = await Promise.all([
      startOrgApi('stores', undefined, { secretStores: { test: { burst: TEST_BURST, perMinute: 1 } } }),
      startOpenBao(),
    ]);
    viewer = await signUpMember(org.api, org.owner, org.orgId, 'viewer', 'viewer');
    ageKey = await generateX25519Identity();
  });

  afterAll(async () => {
    await org?.api.close();
    await bao?.stop();
    await deleteNamespaces(org.orgNs, `${org.orgNs}-fetcher`);
  });

  const call = <T = Json>(method: string, url: string, body?: unknown, who: TestUser = org.owner) =>
    org.api.call<T>(method, url, { cookie: who.cookie, ...(body === undefined ? {} : { body }) });
  const vaultStore = (name: string, credentials: Json = { token: bao.token }, config: Json = {}) => ({
    name,
    type: 'vault',
    provider: 'openbao',
    config: { address: bao.address, ...config },
    credentials,
  });

  it('lists every provider with its config and credential schemas, to readers only', async () => {
    const res = await call<{ items: Json[] }>('GET', `${path}/providers`, undefined, viewer);
    expect(res.status).toBe(200);
    expect(res.body.items.map((p) => `${p['type']}/${p['provider']}`)).toEqual([
      'vault/vault',
      'vault/openbao',
      'sops/age',
      'eso/eso',
    ]);
    const openbao = res.body.items[1] as { config: Json; credentials: Json };
    expect(openbao.config).toMatchObject({ type: 'object', required: ['address'] });
    expect(JSON.stringify(openbao.credentials)).toContain('roleId');
    expect((await org.api.call('GET', `${path}/providers`)).status).toBe(401);
  });

  it('creates a store with its credentials sealed and stripped, refuses duplicates and bad input, audits', async () => {
    const created = await call('POST', path, vaultStore('bao-token'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'bao-token',
      type: 'vault',
      provider: 'openbao',
      status: 'untested',
      statusDetail: '',
      lastTestedAt: null,
      credentialsExpireAt: null,
      references: 0,
      config: { address: bao.address, mountPath: 'secret', authMount: 'approle' },
    });
    expect(String(created.body['id'])).toMatch(/^sts_[0-9a-f]{24}$/);
    expect(JSON.stringify(created.body)).not.toContain(bao.token);
    expect(Object.keys(created.body)).not.toContain('credentials');

    // At rest: sealed, and the token nowhere in the row.
    const db = openStore(org.api.database);
    try {
      const row = await db.db
        .selectFrom('secret_store')
        .selectAll()
        .where('id', '=', String(created.body['id']))
        .executeTakeFirstOrThrow();
      expect(row.credentials).toMatch(/^enc:v1:/);
      expect(JSON.stringify(row)).not.toContain(bao.token);
    } finally {
      await db.close();
    }

    expect(await call('POST', path, vaultStore('bao-token'))).toMatchObject({
      status: 409,
      body: { error: 'a secret store named "bao-token" already exists' },
    });
    // 400: what the document refuses (each provider's fields are its body variant); 422: an address the outbound
    // policy refuses (the server's setting).
    const bad: [number, Json, RegExp][] = [
      [400, { ...vaultStore('no-address'), config: {} }, /config\.address is required/],
      [400, { ...vaultStore('both'), credentials: { token: 't', roleId: 'r' } }, /credentials: Either a token/],
      [400, { ...vaultStore('Bad_Name') }, /name/],
      [
        422,
        { ...vaultStore('ftp'), config: { address: 'ftp://vault.example' } },
        /config\.address: ftp: URLs are not allowed/,
      ],
      [
        400,
        { name: 'kms', type: 'sops', provider: 'aws-kms', credentials: {} },
        /type\/provider must be one of vault\/vault, vault\/openbao, sops\/age, eso\/eso/,
      ],
      [400, { name: 'mixed', type: 'sops', provider: 'vault', credentials: {} }, /must be one of .*sops\/age/],
      [400, { name: 'weird', type: 'kms', provider: 'age' }, /must be one of .*sops\/age/],
      [
        400,
        { name: 'age-bad', type: 'sops', provider: 'age', credentials: { privateKey: 'nope' } },
        /credentials\.privateKey/,
      ],
      [400, { name: 'eso-x', type: 'eso', provider: 'eso', config: {} }, /config\.storeName is required/],
    ];
    for (const [status, body, message] of bad) {
      const res = await call('POST', path, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(String(res.body['error'])).toMatch(message);
    }

    const audit = await auditEntries(org.api, org.owner, 'secretstore.create', 'bao-token');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ resource_type: 'secretstore', resource_id: created.body['id'] });
    expect(JSON.stringify(audit)).not.toContain(bao.token);
  });

  it('keeps management to sessions of members holding secretstore:manage', async () => {
    const key = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'admin' });
    const byKey = await org.api.call('POST', path, { key: key.key, body: vaultStore('by-key') });
    expect(byKey).toMatchObject({ status: 403, body: { error: expect.stringContaining('session') } });
    const keyTest = await org.api.call('POST', `${path}/test`, { key: key.key, body: vaultStore('by-key') });
    expect(keyTest.status).toBe(403);
    expect((await org.api.call('GET', path, { key: key.key })).status).toBe(200);
    expect((await call('POST', path, vaultStore('by-viewer'), viewer)).status).toBe(403);
    const list = await call<{ items: Json[] }>('GET', path, undefined, viewer);
    expect(list.status).toBe(200);
    expect(list.body.items.map((s) => s['name'])).toContain('bao-token');
  });

  it('patches name, config (merged) and credentials; omitted fields stay; the store is untested again', async () => {
    const created = await call('POST', path, vaultStore('patch-me'));
    const id = String(created.body['id']);
    await call('POST', `${path}/${id}/test`);
    expect((await call('GET', `${path}/${id}`)).body['status']).toBe('connected');

    const renamed = await call('PATCH', `${path}/${id}`, { name: 'patched' });
    expect(renamed).toMatchObject({ status: 200, body: { name: 'patched', status: 'connected' } });
    const merged = await call('PATCH', `${path}/${id}`, { config: { mountPath: 'kv1' } });
    expect(merged.body).toMatchObject({
      status: 'untested',
      config: { address: bao.address, mountPath: 'kv1' },
    });
    const back = await call('PATCH', `${path}/${id}`, { config: { mountPath: null } });
    expect((back.body['config'] as Json)['mountPath']).toBe('secret');
    // New credentials replace the old: a bad token now fails the test with auth.
    await call('PATCH', `${path}/${id}`, { credentials: { token: 'not-a-token' } });
    const failed = await call('POST', `${path}/${id}/test`);
    expect(failed.body).toMatchObject({ status: 'error', errorClass: 'auth' });
    expect((await call('PATCH', `${path}/${id}`, { type: 'sops' })).status).toBe(400);
    expect((await call('PATCH', `${path}/sts_missing`, { name: 'x' })).status).toBe(404);
    expect((await call('PATCH', `${path}/${id}`, { name: 'bao-token' })).status).toBe(409);

    const audit = await auditEntries(org.api, org.owner, 'secretstore.update', 'patched');
    expect(audit.map((e) => (e['details'] as Json)['fields'])).toContainEqual(['credentials']);
    expect(JSON.stringify(audit)).not.toContain('not-a-token');
  });

  it('tests token and AppRole stores against OpenBao: connected, lastTestedAt, credentialsExpireAt from the TTL', async () => {
    const token = await call('POST', path, vaultStore('ttl-token'));
    const before = Date.now();
    const tested = await call('POST', `${path}/${String(token.body['id'])}/test`);
    expect(tested.body).toMatchObject({
      status: 'connected',
      latency: expect.any(Number),
      details: {
        authenticated: true,
        method: 'token',
        policies: expect.arrayContaining([bao.policy]),
        mount: { path: 'secret', type: 'kv', version: '2' },
      },
    });
    const ttl = (tested.body['details'] as Json)['ttlSeconds'] as number;
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(7200); // the harness's token is created with ttl 2h
    const stored = await call('GET', `${path}/${String(token.body['id'])}`);
    expect(stored.body).toMatchObject({ status: 'connected', statusDetail: expect.stringContaining('token TTL') });
    const expires = Date.parse(String(stored.body['credentialsExpireAt']));
    expect(expires).toBeGreaterThan(before);
    expect(expires).toBeLessThanOrEqual(Date.now() + 7200 * 1000);
    expect(Date.parse(String(stored.body['lastTestedAt']))).toBeGreaterThanOrEqual(before - 1000);

    const approle = await call(
      'POST',
      path,
      vaultStore('approle', { roleId: bao.appRole.roleId, secretId: bao.appRole.secretId }),
    );
    const viaRole = await call('POST', `${path}/${String(approle.body['id'])}/test`);
    expect(viaRole.body).toMatchObject({ status: 'connected', details: { method: 'approle' } });
    // AppRole credentials do not expire with a token.
    expect((await call('GET', `${path}/${String(approle.body['id'])}`)).body['credentialsExpireAt']).toBeNull();

    const audit = await auditEntries(org.api, org.owner, 'secretstore.test', 'approle');
    expect(audit[0]).toMatchObject({ details: { saved: true, status: 'connected', provider: 'openbao' } });
  });

  it('counts and lists the Apps that use a store; refuses delete and rename while they do', async () => {
    const age = await call('POST', path, {
      name: 'age-key',
      type: 'sops',
      provider: 'age',
      credentials: { privateKey: ageKey },
    });
    expect(age.status).toBe(201);
    expect((age.body['config'] as Json)['recipient']).toMatch(/^age1[0-9a-z]{58}$/);
    expect(JSON.stringify(age.body)).not.toContain(ageKey);
    const ageId = String(age.body['id']);
    const bao2 = await call('POST', path, vaultStore('env-values'));
    const baoId = String(bao2.body['id']);

    const app = await call('POST', '/api/v1/apps', {
      name: 'sealed',
      namespace: `${org.orgNs}-sealed`,
      source: {
        type: 'Git',
        git: { repoURL: 'https://git.example.test/demo.git', decryption: { storeRef: 'age-key' } },
      },
    });
    expect(app.status).toBe(201);
    const imaged = await call('POST', '/api/v1/apps', {
      name: 'imaged',
      namespace: `${org.orgNs}-imaged`,
      source: {
        type: 'Image',
        image: {
          repository: 'registry.example.test/web',
          tag: '1',
          workload: {
            env: [
              { name: 'A', store: { id: baoId, path: 'app', key: 'a' } },
              { name: 'B', store: { id: baoId, path: 'app', key: 'b' } },
            ],
          },
        },
      },
    });
    expect(imaged.status).toBe(201);

    await expect.poll(async () => (await call('GET', `${path}/${ageId}`)).body['references']).toBe(1);
    await expect.poll(async () => (await call('GET', `${path}/${baoId}`)).body['references']).toBe(2);
    const refs = await call<{ items: Json[] }>('GET', `${path}/${baoId}/references`, undefined, viewer);
    expect(refs.body.items).toEqual([
      { name: 'imaged', namespace: `${org.orgNs}-imaged`, cluster: '', usage: 'env', env: 'A' },
      { name: 'imaged', namespace: `${org.orgNs}-imaged`, cluster: '', usage: 'env', env: 'B' },
    ]);
    const listed = await call<{ items: Json[] }>('GET', path);
    expect(listed.body.items.find((s) => s['id'] === ageId)?.['references']).toBe(1);

    const del = await call('DELETE', `${path}/${ageId}`);
    expect(del).toMatchObject({ status: 409, body: { error: expect.stringContaining(`${org.orgNs}-sealed/sealed`) } });
    expect((await call('PATCH', `${path}/${ageId}`, { name: 'renamed' })).status).toBe(409);
    expect((await call('DELETE', `${path}/${baoId}`)).status).toBe(409);

    expect((await call('DELETE', `/api/v1/apps/${org.orgNs}-sealed/sealed`)).status).toBe(200);
    await expect.poll(async () => (await call('GET', `${path}/${ageId}`)).body['references']).toBe(0);
    expect(await call('DELETE', `${path}/${ageId}`)).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await call('GET', `${path}/${ageId}`)).status).toBe(404);
    expect(await auditEntries(org.api, org.owner, 'secretstore.delete', 'age-key')).toHaveLength(1);
  });

  it('resolves env.store values and decryption keys for the operator, naming what is missing', async () => {
    await bao.writeSecret('shop', { password: 'from-openbao', user: 'shop' });
    const kv1 = await call(
      'POST',
      path,
      vaultStore('kv1-store', { token: bao.rootToken }, { mountPath: bao.kvV1Mount }),
    );
    const main = await call('POST', path, vaultStore('kv2-store'));
    const age = await call('POST', path, {
      name: 'age-ops',
      type: 'sops',
      provider: 'age',
      credentials: { privateKey: ageKey },
    });
    const eso = await call('POST', path, {
      name: 'eso-store',
      type: 'eso',
      provider: 'eso',
      config: { storeName: 'vault-backend' },
    });
    const ids = Object.fromEntries(
      [kv1, main, eso].map((r) => [String(r.body['name']), String(r.body['id'])]),
    ) as Record<string, string>;
    const env = (name: string, id: string, key: string, p = 'shop') => ({ name, store: { id, path: p, key } });
    const fetcher = await call('POST', '/api/v1/apps', {
      name: 'fetcher',
      namespace: `${org.orgNs}-fetcher`,
      source: {
        type: 'Image',
        image: {
          repository: 'registry.example.test/shop',
          tag: '1',
          workload: {
            env: [
              env('PASSWORD', ids['kv2-store'] as string, 'password'),
              env('USER', ids['kv2-store'] as string, 'user'),
              env('FROM_ESO', ids['eso-store'] as string, 'token', 'team/shop'),
              env('MISSING_KEY', ids['kv2-store'] as string, 'nope'),
              env('OLD', ids['kv1-store'] as string, 'x'),
            ],
          },
        },
      },
    });
    expect(fetcher.status).toBe(201);
    const channel = org.api.app.serverChannel;
    const who = { appNamespace: org.orgNs, appName: 'fetcher' };
    const ref = (name: string, id: string, key: string, p = 'shop') => ({ name, id, path: p, key });

    expect(
      await channel.envValues({
        ...who,
        refs: [
          ref('PASSWORD', ids['kv2-store'] as string, 'password'),
          ref('FROM_ESO', ids['eso-store'] as string, 'token', 'team/shop'),
          ref('USER', ids['kv2-store'] as string, 'user'),
        ],
      }),
    ).toEqual([
      { name: 'PASSWORD', value: 'from-openbao' },
      {
        name: 'FROM_ESO',
        externalSecret: {
          storeName: 'vault-backend',
          storeKind: 'ClusterSecretStore',
          refreshInterval: '1h',
          path: 'team/shop',
          key: 'token',
        },
      },
      { name: 'USER', value: 'shop' },
    ]);
    // The eso entry renders an ExternalSecret that the plane's real external-secrets CRD accepts (no controller runs).
    const fetched = await channel.envValues({
      ...who,
      refs: [ref('FROM_ESO', ids['eso-store'] as string, 'token', 'team/shop')],
    });
    const rendered = workloadEnv(
      'fetcher',
      [env('FROM_ESO', ids['eso-store'] as string, 'token', 'team/shop')],
      fetched,
    );
    expect(rendered.env).toEqual([
      { name: 'FROM_ESO', valueFrom: { secretKeyRef: { name: 'fetcher-env-1', key: 'FROM_ESO' } } },
    ]);
    const destNs = `${org.orgNs}-fetcher`;
    await org.kube.objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: destNs } });
    const [externalSecret] = rendered.externalSecrets;
    const applied = await org.kube.objects.apply({
      ...(externalSecret as AnyObject),
      metadata: { name: 'fetcher-env-1', namespace: destNs },
    });
    expect(applied).toMatchObject({
      kind: 'ExternalSecret',
      spec: {
        secretStoreRef: { name: 'vault-backend', kind: 'ClusterSecretStore' },
        target: { name: 'fetcher-env-1' },
      },
    });

    await expect(
      channel.envValues({ ...who, refs: [ref('MISSING_KEY', ids['kv2-store'] as string, 'nope')] }),
    ).rejects.toMatchObject({ errorClass: 'notfound', message: 'the secret at "secret/shop" has no key "nope"' });
    await expect(
      channel.envValues({ ...who, refs: [ref('X', ids['kv2-store'] as string, 'k', 'absent')] }),
    ).rejects.toMatchObject({
      errorClass: 'notfound',
      message: expect.stringContaining('no secret at "secret/absent"'),
    });
    await expect(
      channel.envValues({ ...who, refs: [ref('OLD', ids['kv1-store'] as string, 'x')] }),
    ).rejects.toMatchObject({
      errorClass: 'provider',
      message: 'mount "kv1" is a KV version 1 engine, not KV version 2',
    });
    // A store the App does not name is not handed out, nor is a key to an App that does not name the store.
    await expect(channel.envValues({ ...who, refs: [ref('P', String(age.body['id']), 'k')] })).rejects.toThrow(
      /does not use secret store "age-ops"/,
    );
    await expect(channel.decryptionKey({ ...who, storeRef: 'age-ops' })).rejects.toThrow(/does not use/);
    await expect(channel.envValues({ appNamespace: org.orgNs, appName: 'nobody', refs: [] })).rejects.toThrow(
      /not found/,
    );
  });

  it('rate-limits tests per user with 429 {error}', async () => {
    const other = await signUpMember(org.api, org.owner, org.orgId, `admin-${randomBytes(2).toString('hex')}`, 'admin');
    const body = { type: 'sops', provider: 'age', credentials: { privateKey: ageKey } };
    const answers: number[] = [];
    for (let i = 0; i <= TEST_BURST; i++) answers.push((await call('POST', `${path}/test`, body, other)).status);
    expect(answers).toEqual([...Array(TEST_BURST).fill(200), 429]);
    const limited = await call('POST', `${path}/test`, body, other);
    expect(limited).toMatchObject({ status: 429, body: { error: expect.stringContaining('too many') } });
    // Per user: the owner's own budget is untouched by the other admin's.
    expect((await call('POST', `${path}/test`, body)).body).toMatchObject({
      status: 'connected',
      details: { roundTrip: true },
    });
  });
});
