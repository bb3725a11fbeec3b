import Fastify from 'fastify';
import { Type } from 'typebox';
import { afterAll, describe, expect, it } from 'vitest';
import { handleError } from './error-handler.ts';

const closed = { additionalProperties: false } as const;
const Credentials = Type.Union(
  [
    Type.Object({ token: Type.String() }, closed),
    Type.Object({ roleId: Type.String(), secretId: Type.String() }, closed),
  ],
  { description: 'a token, or an AppRole roleId and secretId' },
);
const Store = Type.Union([
  Type.Object({ type: Type.Literal('vault'), provider: Type.Literal('vault'), credentials: Credentials }, closed),
  Type.Object({ type: Type.Literal('vault'), provider: Type.Literal('openbao'), credentials: Credentials }, closed),
  Type.Object({ type: Type.Literal('eso'), provider: Type.Literal('eso') }, closed),
]);

const app = Fastify({
  ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false, verbose: true } },
});
app.setErrorHandler(handleError);
app.post('/stores', { schema: { body: Store } }, async () => ({ ok: true }));
const Scoped = Type.Union([
  Type.Object({ name: Type.String(), scope: Type.Optional(Type.Literal('org')) }, closed),
  Type.Object({ name: Type.String(), scope: Type.Literal('cluster'), scope_id: Type.String() }, closed),
]);
app.post('/scoped', { schema: { body: Scoped } }, async () => ({ ok: true }));
app.get(
  '/list',
  { schema: { querystring: Type.Object({ sync: Type.String({ pattern: '^(a|b)$', description: 'a or b' }) }) } },
  async () => ({ ok: true }),
);
afterAll(() => app.close());

const error = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
  const res = await app.inject({ method, url, ...(payload ? { payload } : {}) });
  expect(res.statusCode).toBe(400);
  return (res.json() as { error: string }).error;
};

describe('validation messages', () => {
  it('describe a union body by the variant the caller meant', async () => {
    expect(await error('POST', '/stores', { type: 'vault', provider: 'openbao', credentials: { token: 1 } })).toBe(
      'credentials: a token, or an AppRole roleId and secretId',
    );
    expect(await error('POST', '/stores', { type: 'eso', provider: 'eso', extra: 1 })).toBe('unknown field "extra"');
  });

  it('take a variant whose discriminating field is left out as not meant', async () => {
    expect(await error('POST', '/scoped', { name: 1 })).toBe('name must be string');
  });

  it('name the values a union takes when the body matches none of them', async () => {
    expect(await error('POST', '/stores', { type: 'sops', provider: 'age' })).toBe(
      'type/provider must be one of vault/vault, vault/openbao, eso/eso',
    );
  });

  it('say what a pattern is for', async () => {
    expect(await error('GET', '/list?sync=c')).toBe('sync must match the pattern ^(a|b)$ (a or b)');
  });
});
