/**
 * The secret-store use-cases (contract §4.4): `secretstore:read` to list and read, `secretstore:manage` (which API
 * keys never hold) to create, patch, delete and test. What each does is SecretStoreService (./service.ts), on the
 * server's per-user test rate limit.
 */
import { type UseCaseContext, useCase } from '../use-case.ts';
import type { CreateStoreBody, PatchStoreBody, TestStoreBody } from './contract.ts';
import { SecretStoreService } from './service.ts';

/** The store service on the server's parts. */
function storesOf(ctx: UseCaseContext): SecretStoreService {
  const { store, sealer, config, kube, secretStoreTests } = ctx.services;
  return new SecretStoreService({
    store,
    sealer,
    outbound: config.outbound,
    timeoutMs: secretStoreTests.timeoutMs,
    kube,
    testLimiter: secretStoreTests.limiter,
  });
}

/** Every store type/provider with its config and credential JSON Schemas. */
export const listProviders = useCase({
  permission: 'secretstore:read',
  where: 'org',
  act: async (ctx, _input: undefined) => storesOf(ctx).providers(ctx),
});

/** The org's stores with their reference counts. */
export const listStores = useCase({
  permission: 'secretstore:read',
  where: 'org',
  act: (ctx, _input: undefined) => storesOf(ctx).list(ctx),
});

/** One store; 404 outside the org. */
export const getStore = useCase({
  permission: 'secretstore:read',
  where: 'org',
  act: (ctx, id: string) => storesOf(ctx).get(ctx, id),
});

/** The Apps using a store. */
export const storeReferences = useCase({
  permission: 'secretstore:read',
  where: 'org',
  act: (ctx, id: string) => storesOf(ctx).references(ctx, id),
});

/** Creates a store, status untested; 409 for a taken name; audited `secretstore.create`. */
export const createStore = useCase({
  permission: 'secretstore:manage',
  where: 'org',
  act: (ctx, body: CreateStoreBody) => storesOf(ctx).create(ctx, body),
});

/** Updates name, config (merged) and credentials (replaced); audited `secretstore.update`. */
export const updateStore = useCase({
  permission: 'secretstore:manage',
  where: 'org',
  act: (ctx, input: { id: string; body: PatchStoreBody }) => storesOf(ctx).update(ctx, input.id, input.body),
});

/** Deletes a store; 409 while Apps use it; audited `secretstore.delete`. */
export const deleteStore = useCase({
  permission: 'secretstore:manage',
  where: 'org',
  act: (ctx, id: string) => storesOf(ctx).delete(ctx, id),
});

/** Tests a store that is not saved (rate-limited per user); audited `secretstore.test`. */
export const testUnsavedStore = useCase({
  permission: 'secretstore:manage',
  where: 'org',
  act: (ctx, body: TestStoreBody) => storesOf(ctx).testUnsaved(ctx, body),
});

/** Re-tests a saved store (rate-limited per user); its status becomes connected or error; audited. */
export const testSavedStore = useCase({
  permission: 'secretstore:manage',
  where: 'org',
  act: (ctx, id: string) => storesOf(ctx).testSaved(ctx, id),
});
