/**
 * Writing an operation (app-state.ts writeOperation through the API's App client) against a stale read of the App,
 * on the real apiserver: a change the operator makes on its own (status health) between the API's read and its
 * write must not turn the request into a 409, while another operation written in between must.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { operationIO } from '../../src/api/apps/scope.ts';
import { KubeApps } from '../../src/api/kube/apps-repo.ts';
import { APP_API_VERSION, APP_KIND, type AppResource } from '../../src/core/app-schema.ts';
import { type OperationRequest, writeOperation } from '../../src/core/app-state.ts';
import { ConflictError } from '../../src/core/errors.ts';
import { AppResources } from './api-support.ts';

const slug = `race-${Math.random().toString(16).slice(2, 8)}`;
const ns = `org-${slug}`;
let kube: KubeApps;
let resources: AppResources;

async function freshApp(name: string): Promise<AppResource> {
  return kube.create(ns, {
    apiVersion: APP_API_VERSION,
    kind: APP_KIND,
    metadata: { name },
    spec: {
      source: { type: 'Git', git: { repoURL: 'https://git.example.test/shop.git' } },
      destination: { namespace: 'shop', cluster: '' },
    },
  });
}

/** Writes `request` onto the App as `stale` read it. */
const requestOperation = (stale: AppResource, request: OperationRequest) =>
  writeOperation(operationIO(kube, ns, stale.metadata.name), stale, request);

beforeAll(() => {
  resources = new AppResources(inject('mgmtKubeconfig'));
  kube = new KubeApps(resources.client);
});

afterAll(async () => {
  await resources.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns });
});

describe('writeOperation on a stale read', () => {
  it('retries past a status change made by the operator and writes the operation', async () => {
    const stale = await freshApp('health-moved');
    await resources.setStatus(ns, 'health-moved', { healthStatus: 'Progressing', syncStatus: 'OutOfSync' });
    const id = await requestOperation(stale, { kind: 'Sync', triggeredBy: 'user-1' });
    const stored = await resources.get(ns, 'health-moved');
    expect(stored?.spec.operation).toMatchObject({ kind: 'Sync', id, triggeredBy: 'user-1' });
  });

  it('answers 409 when another operation was written in between, and keeps that one', async () => {
    const stale = await freshApp('raced');
    const first = await requestOperation(stale, { kind: 'Sync', triggeredBy: 'user-1' });
    const second = requestOperation(stale, { kind: 'Restart', triggeredBy: 'user-2' });
    await expect(second).rejects.toBeInstanceOf(ConflictError);
    await expect(second).rejects.toThrow(/already has a pending Sync operation/);
    expect((await resources.get(ns, 'raced'))?.spec.operation?.id).toBe(first);
  });
});
