import Fastify from 'fastify';
import { Type } from 'typebox';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAnswers } from './answer-check.ts';

const app = Fastify();
app.addSchema({ $id: 'Thing', ...Type.Object({ name: Type.String() }, { additionalProperties: false }) });
checkAnswers(app);
const schema = { response: { 200: { $ref: 'Thing' } } };
app.get('/exact', { schema }, async () => ({ name: 'a' }));
app.get('/extra', { schema }, async () => ({ name: 'a', secret: 'dropped by the serializer' }));
app.get('/missing', { schema }, async () => ({}));
afterAll(() => app.close());

describe('checkAnswers', () => {
  it('passes an answer its schema describes', async () => {
    expect((await app.inject('/exact')).json()).toEqual({ name: 'a' });
  });

  it('fails an answer with a field its schema lacks, or without one it requires', async () => {
    expect((await app.inject('/extra')).statusCode).toBe(500);
    expect((await app.inject('/missing')).statusCode).toBe(500);
  });
});
