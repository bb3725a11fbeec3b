/**
 * APIService health through its own status, written by the real aggregator of kube-apiserver: Healthy while it is
 * served (a local APIService), Degraded once it names a Service that does not exist (`Available=False`
 * `ServiceNotFound`), Healthy again. On a plane of its own: an APIService that is not available makes discovery
 * fail for the whole plane (the namespace controller cannot finish a namespace deletion meanwhile), which would
 * disturb the other test files on the shared one.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_API_VERSION, APP_KIND, type AppResource, type AppSpec } from '../../src/core/app-schema.ts';
import { connect, type ObjectClient } from '../../src/kube/index.ts';
import { type ControlPlane, type GitServer, startControlPlane, startGitServer, waitUntil } from '../harness/index.ts';
import { startTestOperator, type TestOperator, unique } from './operator-support.ts';

describe('APIService health, on a plane of its own', () => {
  const org = unique('org-apisvc');
  const group = `h${randomBytes(3).toString('hex')}.svc.test`;
  const name = `v1alpha1.${group}`;
  let plane: ControlPlane;
  let git: GitServer;
  let op: TestOperator;
  let kube: ObjectClient;

  beforeAll(async () => {
    [plane, git] = await Promise.all([startControlPlane({ name: 'apisvc', kwok: false }), startGitServer()]);
    kube = connect({ kubeconfigPath: plane.kubeconfigPath }).objects;
    await kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: org } });
    op = await startTestOperator(org, { env: { SVC_MGMT_KUBECONFIG: plane.kubeconfigPath } });
  });
  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await plane?.stop();
  });

  const apiService = (service: string) =>
    `apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: ${name}}\nspec: {group: ${group}, version: v1alpha1, groupPriorityMinimum: 1000, versionPriority: 10${service}}\n`;
  const app = async () =>
    (await kube.get({ apiVersion: APP_API_VERSION, kind: APP_KIND, namespace: org, name: 'api' })) as unknown as
      | AppResource
      | undefined;
  const settled = (revision: string, health: string) =>
    waitUntil(
      async () => {
        const a = await app();
        return a?.status?.revision === revision && a.status.syncStatus === 'Synced' && a.status.healthStatus === health
          ? a
          : undefined;
      },
      { what: `${health} at ${revision}`, timeoutMs: 60_000 },
    );

  it(`apiregistration.k8s.io/APIService: Healthy → Degraded → Healthy`, async () => {
    const repo = await git.createRepo(unique('apisvc'), { 'm/api.yaml': apiService('') });
    const spec: AppSpec = {
      source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
      destination: { namespace: unique('dest') },
      syncPolicy: { automated: true },
    };
    await kube.apply({ apiVersion: APP_API_VERSION, kind: APP_KIND, metadata: { name: 'api', namespace: org }, spec });
    await settled(await repo.head(), 'Healthy');
    const bad = await repo.commit(
      { 'm/api.yaml': apiService(`, insecureSkipTLSVerify: true, service: {namespace: default, name: missing}`) },
      'point it at a Service that does not exist',
    );
    const degraded = await settled(bad, 'Degraded');
    expect(degraded.status?.healthReason).toMatch(
      new RegExp(`^apiregistration\\.k8s\\.io/APIService ${name.replace(/\./g, '\\.')}: ServiceNotFound: `),
    );
    const fixed = await repo.commit({ 'm/api.yaml': apiService('') }, 'serve it locally again');
    await settled(fixed, 'Healthy');
  });
});
