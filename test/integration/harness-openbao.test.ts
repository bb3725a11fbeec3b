import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenBao, startOpenBao } from '../harness/index.ts';

describe('harness: OpenBao dev server', () => {
  let bao: OpenBao;

  beforeAll(async () => {
    bao = await startOpenBao();
    await bao.writeSecret('apps/guestbook', { password: 'hunter2', user: 'guest' });
  });
  afterAll(async () => {
    await bao?.stop();
  });

  async function readKv(token: string, path: string): Promise<Response> {
    return fetch(`${bao.address}/v1/secret/data/${path}`, { headers: { 'x-vault-token': token } });
  }

  it('reads a KV v2 secret with the policy token', async () => {
    const res = await readKv(bao.token, 'apps/guestbook');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { data: Record<string, string>; metadata: { version: number } } };
    expect(body.data.data).toEqual({ password: 'hunter2', user: 'guest' });
    expect(body.data.metadata.version).toBe(1);
  });

  it('logs in with AppRole and reads the same secret with the issued token', async () => {
    const login = await fetch(`${bao.address}/v1/auth/${bao.appRole.mount}/login`, {
      method: 'POST',
      body: JSON.stringify({ role_id: bao.appRole.roleId, secret_id: bao.appRole.secretId }),
    });
    expect(login.status).toBe(200);
    const token = ((await login.json()) as { auth: { client_token: string } }).auth.client_token;
    const res = await readKv(token, 'apps/guestbook');
    const body = (await res.json()) as { data: { data: Record<string, string> } };
    expect(body.data.data['password']).toBe('hunter2');
  });

  it('denies writes to the read-only token and a login with a wrong secret-id', async () => {
    const write = await fetch(`${bao.address}/v1/secret/data/apps/guestbook`, {
      method: 'POST',
      headers: { 'x-vault-token': bao.token },
      body: JSON.stringify({ data: { password: 'x' } }),
    });
    expect(write.status).toBe(403);
    const login = await fetch(`${bao.address}/v1/auth/approle/login`, {
      method: 'POST',
      body: JSON.stringify({ role_id: bao.appRole.roleId, secret_id: 'wrong' }),
    });
    expect(login.status).toBe(400);
  });

  it('has a KV version 1 mount and hands out an expired token', async () => {
    const mounts = (await bao.api('GET', 'sys/mounts')) as {
      data: Record<string, { type: string; options: { version?: string } | null }>;
    };
    expect(mounts.data[`${bao.kvV1Mount}/`]).toMatchObject({ type: 'kv', options: { version: '1' } });
    const expired = await bao.expiredToken();
    const res = await fetch(`${bao.address}/v1/auth/token/lookup-self`, { headers: { 'x-vault-token': expired } });
    expect(res.status).toBe(403);
  });
});
