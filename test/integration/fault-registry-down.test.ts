/**
 * Fault matrix (issue 17): a registry down and back. An image App runs a digest from the harness registry; the
 * registry stops and a user deploys a new tag: the App shows a SyncError naming the registry's host (a network
 * failure, retried by automated sync; the deploy operation itself fails at once, saying why), the API's preview names the failure without a 5xx, and the running Deployment is untouched (same
 * object, same generation, same image). A registry started again on the same port with the same content (equal
 * content gives equal digests) lets automated sync apply the new tag without a restart of the server or the operator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { freePort, type PushedImage, type Registry, startRegistry } from '../harness/index.ts';
import { type ImageSuite, startImageSuite } from './image-support.ts';
import { getApp, getObject, waitForApp } from './operator-support.ts';

type Json = Record<string, unknown>;
/** The image of a Deployment's first container. */
const imageOf = (deployment: Json | undefined) =>
  (deployment?.['spec'] as { template: { spec: { containers: Json[] } } } | undefined)?.template.spec.containers[0]?.[
    'image'
  ];
const condition = (a: AppResource | undefined, type: string) => a?.status?.conditions?.find((c) => c.type === type);

describe('fault: a registry down and back', () => {
  let suite: ImageSuite;
  let registry: Registry | undefined;
  let port: number;
  const push = async (r: Registry) => ({
    v1: await r.pushImage('svc/web', '1.0', { content: 'fault-v1' }),
    v2: await r.pushImage('svc/web', '2.0', { content: 'fault-v2' }),
  });
  let images: { v1: PushedImage; v2: PushedImage };

  beforeAll(async () => {
    port = await freePort();
    registry = await startRegistry({ port });
    images = await push(registry);
    suite = await startImageSuite('fault-reg');
    await suite.addRegistry('hub', registry);
  });
  afterAll(async () => {
    await suite?.stop();
    await registry?.stop();
  });

  it('SyncError naming the registry while down, the Deployment untouched, automated sync converges after restart', async () => {
    const host = `127.0.0.1:${port}`;
    const dest = await suite.imageApp(
      'web',
      { registryRef: 'hub', repository: 'svc/web', tag: '1.0' },
      { sync_policy: { automated: true } },
    );
    await suite.settled('web', images.v1.digest);
    const before = await getObject('apps/v1', 'Deployment', dest, 'web');
    const runningImage = `${host}/svc/web@${images.v1.digest}`;

    await registry?.stop();
    registry = undefined;

    const deploy = await suite.post(dest, 'web', 'deploy', { tag: '2.0' });
    expect(deploy.status, JSON.stringify(deploy.body)).toBe(200);
    const failing = await waitForApp(
      suite.org.orgNs,
      'web',
      'SyncError naming the registry',
      (a) => condition(a, 'SyncError')?.status === 'True',
    );
    const message = condition(failing, 'SyncError')?.message ?? '';
    expect(message).toContain(`registry ${host}`);
    expect(message).not.toMatch(/\n\s+at /);
    expect(condition(failing, 'Stalled')).toBeUndefined();
    // The requested deploy itself fails at once, saying why (an operation is not retried; automated sync is).
    const failed = await waitForApp(
      suite.org.orgNs,
      'web',
      'the deploy operation Failed',
      (a) =>
        a.status?.operationState?.id === deploy.body['operation_id'] && a.status?.operationState?.phase === 'Failed',
    );
    expect(failed.status?.operationState?.message).toContain(`registry ${host}`);
    // Still failing after more reconciles (retried, not stalled), until the registry is back.
    await waitForApp(
      suite.org.orgNs,
      'web',
      'SyncError still True on a later reconcile',
      (a) =>
        condition(a, 'SyncError')?.status === 'True' &&
        (a.status?.observedGeneration ?? 0) >= (failing.metadata.generation ?? 0),
    );

    // The API: the preview of the same image names the failure (no 5xx); the App's read routes answer.
    const preview = await suite.org.api.call<Json>('POST', '/api/v1/apps/preview', {
      cookie: suite.org.owner.cookie,
      body: {
        name: 'other',
        namespace: 'preview',
        source: { type: 'Image', image: { registryRef: 'hub', repository: 'svc/web', tag: '2.0' } },
      },
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ valid: false });
    expect(String(preview.body['error'] ?? JSON.stringify(preview.body))).toContain(host);
    const shown = await suite.org.api.call<Json>('GET', `/api/v1/apps/${dest}/web`, { cookie: suite.org.owner.cookie });
    expect(shown.status).toBe(200);

    // The running Deployment: the same object at the same generation, still running the old digest.
    const during = await getObject('apps/v1', 'Deployment', dest, 'web');
    expect(during?.metadata['uid']).toBe(before?.metadata['uid']);
    expect(during?.metadata['generation']).toBe(before?.metadata['generation']);
    expect(imageOf(during)).toBe(runningImage);
    expect((await getApp(suite.org.orgNs, 'web'))?.status?.revision).toBe(images.v1.digest);

    registry = await startRegistry({ port });
    const again = await push(registry);
    expect(again.v2.digest).toBe(images.v2.digest);
    // Automated sync picks the tag up once the registry answers: no restart, no new request.
    const recovered = await suite.settled('web', images.v2.digest);
    expect(condition(recovered, 'SyncError')?.status).toBe('False');
    const after = await getObject('apps/v1', 'Deployment', dest, 'web');
    expect(after?.metadata['uid']).toBe(before?.metadata['uid']);
    expect(imageOf(after)).toBe(`${host}/svc/web@${images.v2.digest}`);
  });
});
