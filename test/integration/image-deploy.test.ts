/**
 * An image App deploys end to end (contract §2.3, §2.5, §4.2 rules 11 and 13): through the API, against a
 * token-auth registry (Bearer tokens from distribution's token server) whose credentials the operator — run apart
 * from the server — fetches over the internal channel. The Deployment runs `<registry>/<repo>@sha256:…` with the
 * rendered labels, port, replicas and env; a Service, an Ingress (with `status.url`) and an autoscaler as asked;
 * Pods go Ready through kwok; `status.revision` is the digest. Scale syncs new replicas and is 409 with
 * autoscaling; preview resolves a tag without writing (env values from stores: image-env-store.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PushedImage, type Registry, startRegistry } from '../harness/index.ts';
import { auditEntries } from './api-support.ts';
import { type ImageSuite, startImageSuite } from './image-support.ts';
import { getObject } from './operator-support.ts';

type Json = Record<string, unknown>;
/** The labels the contract names (§4.2 rule 14), spelled out here rather than taken from the renderer. */
const contractLabels = (name: string) => ({
  'app.kubernetes.io/name': name,
  'app.kubernetes.io/instance': name,
  'app.kubernetes.io/managed-by': 'svc',
});

describe('image Apps deploy', () => {
  let suite: ImageSuite;
  let registry: Registry;
  let pushed: PushedImage;
  const apps: Record<string, string> = {};

  beforeAll(async () => {
    registry = await startRegistry({ token: { user: 'svc', password: 'token-pass' } });
    pushed = await registry.pushImage('svc/web', '1.0');
    suite = await startImageSuite('imgdeploy', { channel: 'http' });
    await suite.addRegistry('hub', registry);
  });
  afterAll(async () => {
    await suite?.stop();
    await registry?.stop();
  });

  it('deploys Deployment, Service and Ingress by digest; status.revision is the digest, status.url is set', async () => {
    const dest = await suite.imageApp('web', {
      registryRef: 'hub',
      repository: 'svc/web',
      tag: '1.0',
      workload: { port: 8080, replicas: 2, env: [{ name: 'MODE', value: 'prod' }] },
      ingress: { enabled: true, host: 'web.example.test', tlsSecretRef: 'web-tls' },
    });
    apps['web'] = dest;
    const sync = await suite.post(dest, 'web', 'sync');
    expect(sync.status).toBe(200);
    const app = await suite.settled('web', pushed.digest);
    expect(app.status).toMatchObject({
      revision: pushed.digest,
      observedRevision: pushed.digest,
      url: 'https://web.example.test',
      revisionTags: [{ revision: pushed.digest, tag: '1.0', image: `${registry.host}/svc/web` }],
      operationState: { kind: 'Sync', phase: 'Succeeded', id: sync.body['operation_id'] },
    });

    const deployment = await getObject('apps/v1', 'Deployment', dest, 'web');
    const spec = deployment?.['spec'] as {
      replicas: number;
      selector: Json;
      template: { spec: { containers: Json[] } };
    };
    expect(spec.replicas).toBe(2);
    expect(spec.selector).toEqual({ matchLabels: contractLabels('web') });
    expect(spec.template.spec.containers[0]).toMatchObject({
      name: 'web',
      image: `${registry.host}/svc/web@${pushed.digest}`,
      ports: [{ containerPort: 8080, protocol: 'TCP' }],
      env: [{ name: 'MODE', value: 'prod' }],
      resources: { requests: { cpu: '100m', memory: '128Mi' } },
      readinessProbe: { tcpSocket: { port: 8080 } },
    });
    expect(((deployment?.['status'] ?? {}) as { readyReplicas?: number }).readyReplicas).toBe(2);
    const service = await getObject('v1', 'Service', dest, 'web');
    expect(service?.['spec']).toMatchObject({
      selector: contractLabels('web'),
      ports: [{ port: 8080, targetPort: 8080 }],
    });
    const ingress = await getObject('networking.k8s.io/v1', 'Ingress', dest, 'web');
    expect(ingress?.['spec']).toMatchObject({
      rules: [{ host: 'web.example.test' }],
      tls: [{ hosts: ['web.example.test'], secretName: 'web-tls' }],
    });

    const view = await suite.org.api.call<Json>('GET', `/api/v1/apps/${dest}/web`, { cookie: suite.org.owner.cookie });
    expect(view.body).toMatchObject({
      revision: pushed.digest,
      url: 'https://web.example.test',
      sync_status: 'Synced',
      health: 'Healthy',
    });
    const history = await suite.org.api.call<Json>('GET', `/api/v1/apps/${dest}/web/history`, {
      cookie: suite.org.owner.cookie,
    });
    expect(history.body).toMatchObject({
      revision: pushed.digest,
      revision_tags: [{ revision: pushed.digest, tag: '1.0' }],
    });
  });

  it('restarts: the Deployment template gets a new restartedAt annotation', async () => {
    const dest = apps['web'] as string;
    const res = await suite.post(dest, 'web', 'restart');
    expect(res.status).toBe(200);
    await suite.succeeded('web', res.body['operation_id']);
    const deployment = await getObject('apps/v1', 'Deployment', dest, 'web');
    const template = ((deployment?.['spec'] ?? {}) as { template: { metadata: { annotations?: Json } } }).template;
    expect(template.metadata.annotations?.['cd.svc.space/restartedAt']).toEqual(expect.any(String));
  });

  it('scales with a Sync (replicas follow, audited app.scale); refuses autoscaled Apps with 409', async () => {
    const dest = apps['web'] as string;
    const res = await suite.post(dest, 'web', 'scale', { replicas: 3 });
    expect(res).toMatchObject({ status: 200, body: { replicas: 3 } });
    await suite.succeeded('web', res.body['operation_id']);
    await suite.settled('web', pushed.digest);
    const deployment = await getObject('apps/v1', 'Deployment', dest, 'web');
    expect(((deployment?.['spec'] ?? {}) as { replicas: number }).replicas).toBe(3);
    expect((await auditEntries(suite.org.api, suite.org.owner, 'app.scale', 'web'))[0]?.['details']).toMatchObject({
      replicas: 3,
    });

    const auto = await suite.imageApp(
      'auto',
      {
        registryRef: 'hub',
        repository: 'svc/web',
        tag: '1.0',
        autoscaling: { enabled: true, min: 2, max: 4, cpuPercent: 70 },
      },
      { sync_policy: { automated: true } },
    );
    await suite.settled('auto', pushed.digest);
    const hpa = await getObject('autoscaling/v2', 'HorizontalPodAutoscaler', auto, 'auto');
    expect(hpa?.['spec']).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'auto' },
      minReplicas: 2,
      maxReplicas: 4,
    });
    const managed = (await getObject('apps/v1', 'Deployment', auto, 'auto'))?.metadata['managedFields'] as Array<{
      manager: string;
      fieldsV1?: { 'f:spec'?: Json };
    }>;
    const ours = managed.find((m) => m.manager === 'svc-operator');
    expect(ours?.fieldsV1?.['f:spec']).not.toHaveProperty('f:replicas');
    const refused = await suite.post(auto, 'auto', 'scale', { replicas: 5 });
    expect(refused).toMatchObject({
      status: 409,
      body: { error: 'app auto has autoscaling enabled; scale is refused' },
    });
  });

  it('previews an image payload: the digest its tag points at now, or valid:false naming the cause', async () => {
    const before = (await suite.org.kube.names(suite.org.orgNs)).length;
    const preview = (tag: string) =>
      suite.org.api.call<Json>('POST', '/api/v1/apps/preview', {
        cookie: suite.org.owner.cookie,
        body: {
          name: 'new',
          namespace: 'preview',
          source: { type: 'Image', image: { registryRef: 'hub', repository: 'svc/web', tag } },
        },
      });
    expect((await preview('1.0')).body).toMatchObject({
      valid: true,
      resolved: {
        image: `${registry.host}/svc/web`,
        tag: '1.0',
        digest: pushed.digest,
        ref: `${registry.host}/svc/web@${pushed.digest}`,
      },
    });
    expect((await preview('9.9')).body).toMatchObject({
      valid: false,
      error_class: 'notfound',
      resolved: { digest: '' },
    });
    expect((await suite.org.kube.names(suite.org.orgNs)).length).toBe(before);
  });

  it('serves the registry to the operator credential only (internal route), never to a user', async () => {
    const path = `/internal/registries/${suite.org.orgNs}/hub`;
    const byUser = await suite.org.api.call('GET', path, { cookie: suite.org.owner.cookie });
    expect(byUser.status).toBe(403);
    expect(JSON.stringify(byUser.body)).not.toContain('token-pass');
    expect((await suite.org.api.call('GET', path)).status).toBe(401);
    const byOperator = await suite.org.api.call<Json>('GET', path, {
      headers: { authorization: `Bearer ${suite.operatorToken}` },
    });
    expect(byOperator).toMatchObject({
      status: 200,
      body: { host: registry.host, insecure: true, username: 'svc', password: 'token-pass' },
    });
    expect(
      (
        await suite.org.api.call('GET', `/api/v1/internal/registries/${suite.org.orgNs}/nope`, {
          headers: { authorization: `Bearer ${suite.operatorToken}` },
        })
      ).status,
    ).toBe(404);
  });
});
