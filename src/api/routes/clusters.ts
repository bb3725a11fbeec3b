/**
 * /clusters (contract §4.3): register, list (live probe unless shallow=1), read one, dry-run test, update, remove,
 * live namespaces, and shell pods. Update and removal are the contract's gaps, filled as PATCH and DELETE
 * /clusters/{name} (docs/compatibility.md "Cluster update and removal").
 */
import { type Api, principalOf } from '../api.ts';
import * as contract from '../clusters/contract.ts';
import { spawnShell } from '../clusters/shell-use-case.ts';
import * as clusters from '../clusters/use-cases.ts';
import { clusterJson } from '../clusters/view.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

const shallowOf = (q: { shallow?: string | undefined }) => q.shallow === '1' || q.shallow === 'true';

/** Registers the /clusters routes. */
export async function clusterRoutes(api: Api, services: ApiServices): Promise<void> {
  api.get('/clusters', { schema: contract.listClustersRoute }, async (request) => {
    const list = await run(services, clusters.listClusters, principalOf(request), {
      shallow: shallowOf(request.query),
    });
    return { clusters: list.map(clusterJson) };
  });

  api.post('/clusters', { schema: contract.registerClusterRoute }, async (request, reply) => {
    const record = await run(services, clusters.registerCluster, principalOf(request), request.body);
    return reply.code(201).send({ cluster: clusterJson(record) });
  });

  api.post('/clusters/test', { schema: contract.testClusterRoute }, async (request) =>
    run(services, clusters.testCluster, principalOf(request), request.body),
  );

  api.get('/clusters/:name', { schema: contract.getClusterRoute }, async (request) => {
    const input = { name: request.params.name, shallow: shallowOf(request.query) };
    return { cluster: clusterJson(await run(services, clusters.getCluster, principalOf(request), input)) };
  });

  api.patch('/clusters/:name', { schema: contract.updateClusterRoute }, async (request) => {
    const input = { name: request.params.name, changes: request.body };
    return { cluster: clusterJson(await run(services, clusters.updateCluster, principalOf(request), input)) };
  });

  api.delete('/clusters/:name', { schema: contract.removeClusterRoute }, async (request) => {
    await run(services, clusters.removeCluster, principalOf(request), request.params.name);
    return { deleted: true, name: request.params.name };
  });

  api.get('/clusters/:name/namespaces', { schema: contract.clusterNamespacesRoute }, async (request) => ({
    namespaces: await run(services, clusters.clusterNamespaces, principalOf(request), request.params.name),
  }));

  api.post('/clusters/:name/shell', { schema: contract.spawnShellRoute }, async (request, reply) => {
    const input = { name: request.params.name, ttlSeconds: request.body.ttl_seconds };
    return reply.code(201).send({ shell: await run(services, spawnShell, principalOf(request), input) });
  });
}
