/**
 * /clusters (contract §4.3): register, list (live probe unless shallow=1), read one, dry-run test, update, remove,
 * live namespaces, and shell pods. Update and removal are the contract's gaps, filled as PATCH and DELETE
 * /clusters/{name} (docs/compatibility.md "Cluster update and removal"). Parse → ClusterService → present.
 */
import type { FastifyInstance } from 'fastify';
import {
  Cluster,
  ClusterAnswer,
  ClusterParams,
  clusterErrors,
  RegisterBody,
  ShallowQuery,
  ShellAnswer,
  ShellBody,
  TestAnswer,
  TestBody,
  UpdateBody,
} from '../clusters/schemas.ts';
import { ClusterService, type RegisterInput, type TestInput, type UpdateInput } from '../clusters/service.ts';
import { ShellService } from '../clusters/shell-service.ts';
import { clusterJson } from '../clusters/view.ts';
import { orgCaller } from '../context.ts';
import type { ApiServices } from '../services.ts';

type Name = { Params: { name: string } };
const shallowOf = (q: { shallow?: string }) => q.shallow === '1' || q.shallow === 'true';

/** Registers the /clusters routes. */
export async function clusterRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const clusters = new ClusterService(services);
  const shells = new ShellService(services, clusters);

  app.get<{ Querystring: { shallow?: string } }>(
    '/clusters',
    {
      schema: {
        tags: ['clusters'],
        summary: 'Registered clusters, each probed live in parallel unless shallow=1 (stored data only)',
        querystring: ShallowQuery,
        response: {
          200: { type: 'object', properties: { clusters: { type: 'array', items: Cluster } } },
          ...clusterErrors(),
        },
      },
    },
    async (request) => ({
      clusters: (await clusters.list(orgCaller(request), shallowOf(request.query))).map(clusterJson),
    }),
  );

  app.post<{ Body: RegisterInput }>(
    '/clusters',
    {
      schema: {
        tags: ['clusters'],
        summary: 'Register a cluster (status unknown, no probe); the kubeconfig is sealed and never returned',
        body: RegisterBody,
        response: { 201: ClusterAnswer, ...clusterErrors(409, 413, 415) },
      },
    },
    async (request, reply) => {
      const record = await clusters.register(orgCaller(request), request.body);
      return reply.code(201).send({ cluster: clusterJson(record) });
    },
  );

  app.post<{ Body: TestInput }>(
    '/clusters/test',
    {
      schema: {
        tags: ['clusters'],
        summary: 'Dry-run a registration: connect and read the version (and namespaces); stores nothing',
        body: TestBody,
        response: { 200: TestAnswer, ...clusterErrors(413, 415) },
      },
    },
    async (request) => clusters.test(orgCaller(request), request.body),
  );

  app.get<Name & { Querystring: { shallow?: string } }>(
    '/clusters/:name',
    {
      schema: {
        tags: ['clusters'],
        summary: 'One cluster, probed live unless shallow=1',
        params: ClusterParams,
        querystring: ShallowQuery,
        response: { 200: ClusterAnswer, ...clusterErrors(404) },
      },
    },
    async (request) => {
      const record = await clusters.get(orgCaller(request), request.params.name, shallowOf(request.query));
      return { cluster: clusterJson(record) };
    },
  );

  app.patch<Name & { Body: UpdateInput }>(
    '/clusters/:name',
    {
      schema: {
        tags: ['clusters'],
        summary: 'Change the server URL, credentials (null = in-cluster) or allowlist; the operator follows',
        params: ClusterParams,
        body: UpdateBody,
        response: { 200: ClusterAnswer, ...clusterErrors(404, 409, 413, 415) },
      },
    },
    async (request) => {
      const record = await clusters.update(orgCaller(request), request.params.name, request.body);
      return { cluster: clusterJson(record) };
    },
  );

  app.delete<Name>(
    '/clusters/:name',
    {
      schema: {
        tags: ['clusters'],
        summary: 'Remove a cluster; 409 while Apps deploy to it',
        params: ClusterParams,
        response: {
          200: { type: 'object', properties: { deleted: { type: 'boolean' }, name: { type: 'string' } } },
          ...clusterErrors(404, 409),
        },
      },
    },
    async (request) => {
      await clusters.remove(orgCaller(request), request.params.name);
      return { deleted: true, name: request.params.name };
    },
  );

  app.get<Name>(
    '/clusters/:name/namespaces',
    {
      schema: {
        tags: ['clusters'],
        summary: 'Namespaces of the cluster, live (within its allowlist when it has one)',
        params: ClusterParams,
        response: {
          200: { type: 'object', properties: { namespaces: { type: 'array', items: { type: 'string' } } } },
          ...clusterErrors(404, 502, 503),
        },
      },
    },
    async (request) => ({ namespaces: await clusters.namespaces(orgCaller(request), request.params.name) }),
  );

  app.post<Name & { Body: { ttl_seconds?: number } }>(
    '/clusters/:name/shell',
    {
      schema: {
        tags: ['clusters'],
        summary: 'Spawn a shell pod (view or admin, from the caller’s permissions) and answer how to attach',
        params: ClusterParams,
        body: ShellBody,
        response: { 201: ShellAnswer, ...clusterErrors(404, 413, 415, 502, 503) },
      },
    },
    async (request, reply) => {
      const shell = await shells.spawn(orgCaller(request), request.params.name, request.body.ttl_seconds);
      return reply.code(201).send({ shell });
    },
  );
}
