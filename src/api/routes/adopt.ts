/**
 * GET /apps/adoptable and POST /apps/adopt: take over an existing Deployment or StatefulSet as an image-source App.
 * Adoption needs the workload's selector to match the labels the image renderer puts on its pods already (a
 * Deployment's selector is immutable, so svc could not apply over it otherwise); else 409.
 */
import type { FastifyInstance } from 'fastify';
import { MANAGED_LABEL } from '../../core/app-schema.ts';
import { parseCreateRequest } from '../../core/create-request.ts';
import { ConflictError, InputError, NotFoundError, UnavailableError } from '../../core/errors.ts';
import { isDnsLabel } from '../../core/names.ts';
import { authorizeDestination, createApp } from '../apps/access.ts';
import { kubeOrThrow } from '../apps/lookup.ts';
import { AppObject } from '../apps/schemas.ts';
import { appView } from '../apps/view.ts';
import type { Workload } from '../kube/apps-repo.ts';
import type { ApiServices } from '../services.ts';

/** The pod labels the image renderer sets for an App named `name`; an adoptable selector is a subset of them. */
export function renderedLabels(name: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/managed-by': 'svc',
  };
}

/** Whether the workload's selector uses exactly the rendered label keys with the rendered values. */
function selectorMatches(w: Workload): boolean {
  const want = renderedLabels(w.name);
  const keys = Object.keys(w.selector);
  return (
    keys.length > 0 && keys.every((k) => want[k] === w.selector[k]) && Object.keys(want).every((k) => k in w.selector)
  );
}

/** Splits an image reference into repository and tag (digest references keep the digest as the tag). */
function splitImage(image: string): { repository: string; tag: string } {
  const at = image.indexOf('@');
  if (at >= 0) return { repository: image.slice(0, at), tag: image.slice(at + 1) };
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash
    ? { repository: image.slice(0, colon), tag: image.slice(colon + 1) }
    : { repository: image, tag: 'latest' };
}

const WorkloadView = {
  type: 'object',
  properties: {
    kind: { type: 'string' },
    name: { type: 'string' },
    namespace: { type: 'string' },
    cluster: { type: 'string' },
    replicas: { type: 'integer' },
    images: { type: 'array', items: { type: 'string' } },
    adoptable: { type: 'boolean' },
    reason: { type: 'string' },
  },
} as const;

/** Registers the adopt routes. */
export async function adoptRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  async function unmanagedWorkloads(cluster: string, namespace: string): Promise<Workload[]> {
    if (cluster !== '') throw new UnavailableError('adopting from remote clusters needs cluster registration');
    const all = await kubeOrThrow(services.kube).workloads(namespace);
    return all.filter((w) => !(MANAGED_LABEL in w.labels));
  }

  app.get<{ Querystring: { cluster?: string; namespace: string } }>(
    '/apps/adoptable',
    {
      schema: {
        tags: ['apps'],
        summary: 'Unmanaged Deployments and StatefulSets in a namespace (permission deployment:read there)',
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['namespace'],
          properties: { cluster: { type: 'string' }, namespace: { type: 'string' } },
        },
        response: { 200: { type: 'object', properties: { workloads: { type: 'array', items: WorkloadView } } } },
      },
    },
    async (request) => {
      kubeOrThrow(services.kube);
      const cluster = request.query.cluster ?? '';
      const { namespace } = request.query;
      if (!isDnsLabel(namespace)) throw new InputError('namespace must be a DNS-1123 label');
      await authorizeDestination(services, request, 'deployment:read', cluster, namespace);
      const workloads = (await unmanagedWorkloads(cluster, namespace)).map((w) => {
        const adoptable = selectorMatches(w);
        return {
          kind: w.kind,
          name: w.name,
          namespace,
          cluster,
          replicas: w.replicas,
          images: w.containers.map((c) => c.image),
          adoptable,
          reason: adoptable ? '' : 'selector does not match the rendered labels',
        };
      });
      return { workloads };
    },
  );

  app.post<{ Body: { cluster?: string; namespace: string; name: string; kind: 'Deployment' | 'StatefulSet' } }>(
    '/apps/adopt',
    {
      schema: {
        tags: ['apps'],
        summary:
          'Create an image-source App that takes over a workload (permission deployment:manage); 409 when its selector does not match',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['namespace', 'name', 'kind'],
          properties: {
            cluster: { type: 'string' },
            namespace: { type: 'string' },
            name: { type: 'string' },
            kind: { type: 'string', enum: ['Deployment', 'StatefulSet'] },
          },
        },
        response: { 201: AppObject },
      },
    },
    async (request, reply) => {
      kubeOrThrow(services.kube);
      const { namespace, name, kind } = request.body;
      const cluster = request.body.cluster ?? '';
      if (!isDnsLabel(namespace) || !isDnsLabel(name))
        throw new InputError('namespace and name must be DNS-1123 labels');
      await authorizeDestination(services, request, 'deployment:manage', cluster, namespace);
      const workload = (await unmanagedWorkloads(cluster, namespace)).find((w) => w.kind === kind && w.name === name);
      if (!workload) throw new NotFoundError(`unmanaged ${kind} ${namespace}/${name} not found`);
      if (!selectorMatches(workload)) {
        throw new ConflictError(
          `${kind} ${name} selector must match the rendered labels ${JSON.stringify(renderedLabels(name))}`,
        );
      }
      const container = workload.containers[0];
      if (!container) throw new ConflictError(`${kind} ${name} has no container`);
      const { repository, tag } = splitImage(container.image);
      const parsed = parseCreateRequest({
        name,
        namespace,
        cluster,
        source: {
          type: 'Image',
          image: {
            repository,
            tag,
            workload: { replicas: workload.replicas, ...(container.port ? { port: container.port } : {}) },
          },
        },
      });
      const created = await createApp(
        services,
        request,
        parsed,
        'app.adopt',
        { kind },
        { 'cd.svc.space/adopted': kind },
      );
      return reply.code(201).send(appView(created));
    },
  );
}
