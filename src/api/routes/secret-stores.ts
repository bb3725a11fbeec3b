/** /secret-stores routes (contract §4.4): parse → SecretStoreService → present. */
import type { FastifyInstance } from 'fastify';
import { orgCaller } from '../context.ts';
import {
  CreateStoreBody,
  PatchStoreBody,
  ProviderObject,
  ReferenceObject,
  StoreObject,
  StoreParams,
  storeErrors,
  TestResult,
  TestStoreBody,
} from '../secret-stores/schemas.ts';
import type {
  CreateStoreBody as CreateBody,
  PatchStoreBody as PatchBody,
  TestStoreBody as TestBody,
} from '../secret-stores/service.ts';
import type { ApiServices } from '../services.ts';

type ById = { Params: { id: string } };

/** Registers every /secret-stores route. */
export async function secretStoreRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const stores = services.secretStores;
  const tags = ['secret-stores'];
  const manage = { sessionOnly: true };

  app.get(
    '/secret-stores/providers',
    {
      schema: {
        tags,
        summary: 'Every store type/provider with its config and credential JSON Schemas',
        response: {
          200: { type: 'object', properties: { items: { type: 'array', items: ProviderObject } } },
          ...storeErrors(),
        },
      },
    },
    async (request) => ({ items: stores.providers(orgCaller(request)) }),
  );

  app.get(
    '/secret-stores',
    {
      schema: {
        tags,
        summary: 'Secret stores of the caller org',
        response: {
          200: { type: 'object', properties: { items: { type: 'array', items: StoreObject } } },
          ...storeErrors(502, 503),
        },
      },
    },
    async (request) => ({ items: await stores.list(orgCaller(request)) }),
  );

  app.get<ById>(
    '/secret-stores/:id',
    {
      schema: {
        tags,
        summary: 'One secret store',
        params: StoreParams,
        response: { 200: StoreObject, ...storeErrors(400, 404, 502, 503) },
      },
    },
    async (request) => stores.get(orgCaller(request), request.params.id),
  );

  app.get<ById>(
    '/secret-stores/:id/references',
    {
      schema: {
        tags,
        summary: 'The Apps using the store (env.store entries, decryption.storeRef)',
        params: StoreParams,
        response: {
          200: { type: 'object', properties: { items: { type: 'array', items: ReferenceObject } } },
          ...storeErrors(400, 404, 502, 503),
        },
      },
    },
    async (request) => ({ items: await stores.references(orgCaller(request), request.params.id) }),
  );

  app.post<{ Body: CreateBody }>(
    '/secret-stores',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Create a store (201, status untested, credentials stripped); 409 when the name is taken',
        body: CreateStoreBody,
        response: { 201: StoreObject, ...storeErrors(400, 409, 413, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(await stores.create(orgCaller(request), request.body)),
  );

  app.patch<ById & { Body: PatchBody }>(
    '/secret-stores/:id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Update name, config (merged) and credentials (replaced); omitted fields stay unchanged',
        params: StoreParams,
        body: PatchStoreBody,
        response: { 200: StoreObject, ...storeErrors(400, 404, 409, 413, 415, 502, 503) },
      },
    },
    async (request) => stores.update(orgCaller(request), request.params.id, request.body),
  );

  app.delete<ById>(
    '/secret-stores/:id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Delete a store; 409 while Apps use it',
        params: StoreParams,
        response: {
          200: { type: 'object', properties: { deleted: { type: 'boolean' } } },
          ...storeErrors(400, 404, 409, 502, 503),
        },
      },
    },
    async (request) => {
      await stores.delete(orgCaller(request), request.params.id);
      return { deleted: true };
    },
  );

  app.post<{ Body: TestBody }>(
    '/secret-stores/test',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Test an unsaved store; a failing store answers 200 with status error and its errorClass',
        body: TestStoreBody,
        response: { 200: TestResult, ...storeErrors(400, 413, 415, 429) },
      },
    },
    async (request) => stores.testUnsaved(orgCaller(request), request.body),
  );

  app.post<ById>(
    '/secret-stores/:id/test',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Re-test a saved store: its status becomes connected or error (eso: untested)',
        params: StoreParams,
        response: { 200: TestResult, ...storeErrors(400, 404, 429) },
      },
    },
    async (request) => stores.testSaved(orgCaller(request), request.params.id),
  );
}
