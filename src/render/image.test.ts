import { describe, expect, it } from 'vitest';
import type { ImageSource } from '../core/app-schema.ts';
import { imageURL, renderedLabels, renderImageWorkload } from './image.ts';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const render = (image: Partial<ImageSource>) =>
  renderImageWorkload({
    appName: 'web',
    namespace: 'shop',
    image: { repository: 'registry.example.com/team/web', tag: '1.0', ...image },
    reference: `registry.example.com/team/web@${DIGEST}`,
  });
const byKind = (objects: ReturnType<typeof render>) => Object.fromEntries(objects.map((o) => [o.kind, o]));

describe('image workload renderer', () => {
  it('renders a Deployment by digest and a Service with the defaults', () => {
    const { Deployment, Service, ...rest } = byKind(render({}));
    expect(Object.keys(rest)).toEqual([]);
    const labels = renderedLabels('web');
    expect(Deployment?.metadata).toEqual({ name: 'web', namespace: 'shop', labels });
    expect(Deployment?.['spec']).toEqual({
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'web',
              image: `registry.example.com/team/web@${DIGEST}`,
              ports: [{ containerPort: 80 }],
              resources: { requests: { cpu: '100m', memory: '128Mi' } },
              readinessProbe: { tcpSocket: { port: 80 } },
            },
          ],
        },
      },
    });
    expect(Service?.['spec']).toEqual({
      selector: labels,
      ports: [{ name: 'http', port: 80, targetPort: 80, protocol: 'TCP' }],
    });
  });

  it('renders port, replicas, env, resources, an HTTP probe and the pull secret as asked', () => {
    const { Deployment } = byKind(
      render({
        pullSecretRef: 'pull',
        workload: {
          port: 8080,
          replicas: 3,
          env: [
            { name: 'A', value: '1' },
            { name: 'B', secretRef: { name: 's', key: 'k' } },
          ],
          resources: { limits: { memory: '1Gi' } },
          probe: { path: '/healthz', periodSeconds: 5, failureThreshold: 2, initialDelaySeconds: 1 },
        },
      }),
    );
    const spec = Deployment?.['spec'] as { replicas: number; template: { spec: Record<string, unknown> } };
    expect(spec.replicas).toBe(3);
    expect(spec.template.spec['imagePullSecrets']).toEqual([{ name: 'pull' }]);
    expect((spec.template.spec['containers'] as unknown[])[0]).toMatchObject({
      ports: [{ containerPort: 8080 }],
      env: [
        { name: 'A', value: '1' },
        { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      ],
      resources: { limits: { memory: '1Gi' } },
      readinessProbe: {
        httpGet: { path: '/healthz', port: 8080 },
        periodSeconds: 5,
        failureThreshold: 2,
        initialDelaySeconds: 1,
      },
    });
    const bare = byKind(render({ workload: { resources: {}, probe: { disabled: true } } }));
    const bareSpec = bare.Deployment?.['spec'] as { template: { spec: { containers: object[] } } };
    const c = bareSpec.template.spec.containers[0];
    expect(c).not.toHaveProperty('resources');
    expect(c).not.toHaveProperty('readinessProbe');
  });

  it('renders an Ingress with TLS and an autoscaler that owns the replicas', () => {
    const image = {
      ingress: { enabled: true, host: 'web.example.com', tlsSecretRef: 'web-tls' },
      autoscaling: { enabled: true, min: 2, cpuPercent: 60 },
    };
    const { Deployment, Ingress, HorizontalPodAutoscaler } = byKind(render(image));
    expect(Deployment?.['spec']).not.toHaveProperty('replicas');
    expect(Ingress?.['spec']).toEqual({
      rules: [
        {
          host: 'web.example.com',
          http: {
            paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
          },
        },
      ],
      tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }],
    });
    expect(HorizontalPodAutoscaler?.['spec']).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 10,
      metrics: [{ resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }],
    });
    expect(imageURL({ repository: 'r', tag: 't', ...image })).toBe('https://web.example.com');
    expect(imageURL({ repository: 'r', tag: 't', ingress: { enabled: true, host: 'h.example' } })).toBe(
      'http://h.example',
    );
    expect(imageURL({ repository: 'r', tag: 't', ingress: { enabled: false, host: 'h.example' } })).toBeUndefined();
  });

  it('puts resolved store values into the container and ExternalSecrets beside the Deployment', () => {
    const env = [
      { name: 'PLAIN', value: 'p' },
      { name: 'DB', store: { id: 'sts_1', path: 'db', key: 'pw' } },
      { name: 'TOKEN', store: { id: 'sts_2', path: 'team/web', key: 'token' } },
    ];
    const objects = renderImageWorkload({
      appName: 'web',
      namespace: 'shop',
      image: { repository: 'registry.example.com/team/web', tag: '1.0', workload: { env } },
      reference: `registry.example.com/team/web@${DIGEST}`,
      storeValues: [
        { name: 'DB', value: 'from-the-store' },
        {
          name: 'TOKEN',
          externalSecret: {
            storeName: 'vault-backend',
            storeKind: 'ClusterSecretStore',
            refreshInterval: '1h',
            path: 'team/web',
            key: 'token',
          },
        },
      ],
    });
    const { Deployment, ExternalSecret } = byKind(objects);
    const spec = Deployment?.['spec'] as { template: { spec: { containers: { env: unknown }[] } } };
    expect(spec.template.spec.containers[0]?.env).toEqual([
      { name: 'PLAIN', value: 'p' },
      { name: 'DB', value: 'from-the-store' },
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'web-env-1', key: 'TOKEN' } } },
    ]);
    expect(ExternalSecret?.metadata).toEqual({ name: 'web-env-1', namespace: 'shop', labels: renderedLabels('web') });
    expect(ExternalSecret?.['spec']).toMatchObject({
      secretStoreRef: { name: 'vault-backend', kind: 'ClusterSecretStore' },
      data: [{ secretKey: 'TOKEN', remoteRef: { key: 'team/web', property: 'token' } }],
    });
  });

  it('refuses to render a store entry the server did not answer', () => {
    expect(() =>
      render({ workload: { env: [{ name: 'DB', store: { id: 'sts_1', path: 'db', key: 'pw' } }] } }),
    ).toThrow('env.store entry DB was not resolved');
  });
});
