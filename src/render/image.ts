/**
 * The image-workload renderer (contract §2.3, image source and workload tables): a Deployment running
 * `<image>@<digest>`, a Service in front of it, and optionally an Ingress and an autoscaling/v2
 * HorizontalPodAutoscaler. Pure: the digest is resolved before (src/operator/sources/image.ts).
 *
 * Defaults: port 80, 1 replica, requests of 100m CPU and 128Mi memory, a TCP readiness probe on the port (`path`
 * switches it to an HTTP GET, `disabled` removes it). The probe is a readiness probe only: a liveness probe restarts
 * containers when it fails, which a default should never do on its own. With autoscaling enabled the Deployment
 * leaves `replicas` to the autoscaler (min 1, max the larger of min and 10, 80% CPU by default). `env` entries from
 * secret stores arrive resolved (`storeValues`) and become literal values or ExternalSecret objects (env-store.ts).
 */
import type { ImageSource } from '../core/app-schema.ts';
import { InputError } from '../core/errors.ts';
import type { ResolvedEnv } from '../internal/channel.ts';
import { type ContainerEnv, workloadEnv } from './env-store.ts';
import type { KubeObject } from './types.ts';

/** The container port when the workload names none. */
export const DEFAULT_PORT = 80;
/** Resources of the container when the workload names none. */
export const DEFAULT_RESOURCES = { requests: { cpu: '100m', memory: '128Mi' } } as const;
/** Autoscaler bounds and target when the spec leaves them out. */
export const AUTOSCALING_DEFAULTS = { min: 1, max: 10, cpuPercent: 80 } as const;

/**
 * The labels of the Deployment's selector and Pods, and of every object rendered for the App `name`. A workload
 * can be adopted only when its selector is exactly these (a Deployment's selector is immutable).
 */
export function renderedLabels(name: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/managed-by': 'svc',
  };
}

/** What the image renderer needs. */
export interface ImageRenderRequest {
  /** The App's name: names every object and the container. */
  appName: string;
  /** The destination namespace. */
  namespace: string;
  image: ImageSource;
  /** The reference the Pods pull: `<image name>@<digest>`. */
  reference: string;
  /** The server's answers for the `env[].store` entries, in their order (none without such entries). */
  storeValues?: readonly ResolvedEnv[];
}

/** The App's public URL: `https://<host>` with a TLS Secret, `http://<host>` without, undefined without an Ingress. */
export function imageURL(image: ImageSource): string | undefined {
  const ingress = image.ingress;
  if (ingress?.enabled !== true || !ingress.host) return undefined;
  return `${ingress.tlsSecretRef ? 'https' : 'http'}://${ingress.host}`;
}

/**
 * The objects of an image App: the Deployment, the Service, the Ingress and autoscaler when enabled, and one
 * ExternalSecret per external-secrets store its env uses. Throws when `storeValues` does not answer every
 * `env[].store` entry in order (the caller resolves them first: `envStoreRefs`).
 */
export function renderImageWorkload(req: ImageRenderRequest): KubeObject[] {
  const { appName: name, namespace, image } = req;
  const labels = renderedLabels(name);
  const meta = { name, namespace, labels };
  const port = image.workload?.port ?? DEFAULT_PORT;
  const env = workloadEnv(name, image.workload?.env, req.storeValues);
  const autoscaled = image.autoscaling?.enabled === true;
  const objects: KubeObject[] = [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta,
      spec: {
        ...(autoscaled ? {} : { replicas: image.workload?.replicas ?? 1 }),
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [container(req, port, env.env)],
            ...(image.pullSecretRef ? { imagePullSecrets: [{ name: image.pullSecretRef }] } : {}),
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta,
      spec: { selector: labels, ports: [{ name: 'http', port, targetPort: port, protocol: 'TCP' }] },
    },
  ];
  const ingress = image.ingress;
  if (ingress?.enabled === true) {
    if (!ingress.host) throw new InputError('spec.source.image.ingress.host is required when the ingress is enabled');
    objects.push({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: meta,
      spec: {
        rules: [
          {
            host: ingress.host,
            http: {
              paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: port } } } }],
            },
          },
        ],
        ...(ingress.tlsSecretRef ? { tls: [{ hosts: [ingress.host], secretName: ingress.tlsSecretRef }] } : {}),
      },
    });
  }
  if (autoscaled) {
    const min = image.autoscaling?.min ?? AUTOSCALING_DEFAULTS.min;
    objects.push({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: meta,
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        minReplicas: min,
        maxReplicas: image.autoscaling?.max ?? Math.max(min, AUTOSCALING_DEFAULTS.max),
        metrics: [
          {
            type: 'Resource',
            resource: {
              name: 'cpu',
              target: {
                type: 'Utilization',
                averageUtilization: image.autoscaling?.cpuPercent ?? AUTOSCALING_DEFAULTS.cpuPercent,
              },
            },
          },
        ],
      },
    });
  }
  for (const es of env.externalSecrets) {
    const m = es.metadata as { name: string };
    objects.push({ ...es, metadata: { ...m, namespace, labels } });
  }
  return objects;
}

/** The one container: image by digest, the port, env, resources and the readiness probe. */
function container(req: ImageRenderRequest, port: number, env: ContainerEnv[]): Record<string, unknown> {
  const workload = req.image.workload;
  const resources = workload?.resources ?? DEFAULT_RESOURCES;
  const hasResources = Object.values(resources).some((r) => r && Object.keys(r).length > 0);
  const probe = readinessProbe(req.image, port);
  return {
    name: req.appName,
    image: req.reference,
    ports: [{ containerPort: port }],
    ...(env.length > 0 ? { env } : {}),
    ...(hasResources ? { resources } : {}),
    ...(probe ? { readinessProbe: probe } : {}),
  };
}

function readinessProbe(image: ImageSource, port: number): Record<string, unknown> | undefined {
  const p = image.workload?.probe;
  if (p?.disabled === true) return undefined;
  return {
    ...(p?.path ? { httpGet: { path: p.path, port } } : { tcpSocket: { port } }),
    ...(p?.initialDelaySeconds !== undefined ? { initialDelaySeconds: p.initialDelaySeconds } : {}),
    ...(p?.periodSeconds !== undefined ? { periodSeconds: p.periodSeconds } : {}),
    ...(p?.failureThreshold !== undefined ? { failureThreshold: p.failureThreshold } : {}),
  };
}
