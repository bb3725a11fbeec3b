/**
 * api: requests per second and latency on loopback (autocannon) against `svc server` with an API key, with 1000
 * Apps in the org: GET /api/v1/apps, GET /api/v1/apps/{ns}/{name}/status, POST /api/v1/apps/{ns}/{name}/sync.
 * Apps are created through the API; each then gets a status like the operator writes, so list answers carry
 * realistic objects. No operator runs (it would compete for the same cores), so each App takes one sync: the
 * sync runs address every App once instead of repeating one URL.
 */

import { connect } from '../src/kube/index.ts';
import { benchAccount } from './lib/account.ts';
import { APPS_NAMESPACE, appName, destinationNamespace } from './lib/fixture.ts';
import { load } from './lib/load.ts';
import { BENCH_THROUGHPUT, startBenchPlane } from './lib/plane.ts';
import { forEachLimit } from './lib/pool.ts';
import { sampleProcess } from './lib/proc.ts';
import { writeResult } from './lib/results.ts';
import { summarize } from './lib/stats.ts';
import { keepProfiles, startServerProcess } from './lib/svc-process.ts';
import { appsPath } from './lib/wait.ts';

/** Parameters of the api benchmark. */
export interface ApiParams {
  apps: number;
  durationSeconds: number;
  connections: number[];
  cpuProfile: boolean;
}

/** A status of the shape the operator writes for a converged fixture App. */
function convergedStatus(i: number) {
  const now = new Date().toISOString();
  const revision = (i + 1).toString(16).padStart(40, 'a');
  const ns = destinationNamespace(i);
  const resource = (apiVersion: string, kind: string) => ({
    apiVersion,
    kind,
    name: 'web',
    namespace: ns,
    syncStatus: 'Synced',
    healthStatus: 'Healthy',
  });
  return {
    syncStatus: 'Synced',
    healthStatus: 'Healthy',
    lastSyncAt: now,
    revision,
    observedRevision: revision,
    previousRevisions: [revision.replace(/a/g, 'b'), revision.replace(/a/g, 'c')],
    objectHash: 'f'.repeat(64),
    resources: [resource('apps/v1', 'Deployment'), resource('v1', 'Service')],
    conditions: [{ type: 'Ready', status: 'True', reason: 'Healthy', lastTransitionTime: now }],
    operationState: { kind: 'Sync', phase: 'Succeeded', initiatedAt: now, finishedAt: now, revision },
    observedGeneration: 1,
    inventory: [
      { id: `${ns}_web__Service`, v: 'v1' },
      { id: `${ns}_web_apps_Deployment`, v: 'v1' },
    ],
  };
}

/** Runs the api benchmark and writes bench/results/api.json. */
export async function api(params: ApiParams, log: (line: string) => void): Promise<string> {
  const plane = await startBenchPlane('bench-api');
  const { client } = connect({ kubeconfigPath: plane.kubeconfigPath });
  try {
    const server = await startServerProcess({ kubeconfigPath: plane.kubeconfigPath, cpuProfile: params.cpuProfile });
    try {
      const { key } = await benchAccount(server.baseURL);
      log(`api: creating ${params.apps} Apps through POST /api/v1/apps`);
      const createLatencies: number[] = [];
      const started = performance.now();
      await forEachLimit(params.apps, 8, async (i) => {
        const t = performance.now();
        const res = await fetch(`${server.baseURL}/api/v1/apps`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({
            name: appName(i),
            namespace: destinationNamespace(i),
            source: { type: 'Git', git: { repoURL: 'http://127.0.0.1:9/bench-fixture.git', path: '.' } },
            sync_policy: { automated: false, prune: true },
          }),
        });
        if (res.status !== 201) throw new Error(`POST /api/v1/apps: ${res.status} ${await res.text()}`);
        createLatencies.push(performance.now() - t);
      });
      const createSeconds = (performance.now() - started) / 1000;
      log(`  created in ${createSeconds.toFixed(1)} s; writing converged statuses`);
      await forEachLimit(params.apps, 16, (i) =>
        client
          .request(`${appsPath}/${appName(i)}/status`, {
            method: 'PATCH',
            body: { status: convergedStatus(i) },
            contentType: 'application/merge-patch+json',
          })
          .then(() => undefined),
      );

      const sampler = sampleProcess(server.pid);
      const runs = [];
      const first = 0;
      const statusPath = `/api/v1/apps/${destinationNamespace(first)}/${appName(first)}/status`;
      for (const connections of params.connections) {
        runs.push(
          await load(
            server.baseURL,
            key,
            { name: 'GET /api/v1/apps', method: 'GET', path: '/api/v1/apps', connections },
            params.durationSeconds,
          ),
        );
        runs.push(
          await load(
            server.baseURL,
            key,
            { name: 'GET /api/v1/apps/{ns}/{name}/status', method: 'GET', path: statusPath, connections },
            params.durationSeconds,
          ),
        );
      }
      // Each App takes one sync (no operator consumes it): split the Apps between the connection settings.
      const share = Math.floor(params.apps / params.connections.length);
      for (const [k, connections] of params.connections.entries()) {
        let next = k * share;
        const path = () => {
          const i = next++;
          return `/api/v1/apps/${destinationNamespace(i)}/${appName(i)}/sync`;
        };
        runs.push(
          await load(
            server.baseURL,
            key,
            { name: 'POST /api/v1/apps/{ns}/{name}/sync', method: 'POST', path, connections, amount: share },
            params.durationSeconds,
          ),
        );
      }
      const serverSamples = sampler.stop();
      for (const r of runs) {
        log(
          `  ${r.name} c=${r.connections}: ${r.requestsPerSecond} req/s, p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, statuses ${JSON.stringify(r.statuses)}`,
        );
      }
      return await writeResult('api', {
        parameters: {
          ...params,
          appsNamespace: APPS_NAMESPACE,
          auth: 'API key (Bearer svc_…), org scope, admin',
          database: 'SQLite',
          controlPlane: BENCH_THROUGHPUT,
        },
        summary: runs.map((r) => ({
          route: r.name,
          connections: r.connections,
          requestsPerSecond: r.requestsPerSecond,
          p50Ms: r.latencyMs.p50,
          p99Ms: r.latencyMs.p99,
          statuses: r.statuses,
        })),
        setup: { createSeconds: Number(createSeconds.toFixed(2)), createLatencyMs: summarize(createLatencies) },
        serverPeakRssMiB: serverSamples.at(-1)?.hwmMiB,
        runs,
        serverSamples,
      });
    } finally {
      await server.stop();
      if (server.profileDir) log(`  profiles: ${(await keepProfiles(server.profileDir, 'api')).join(', ')}`);
    }
  } finally {
    await client.dropConnections();
    await plane.stop();
  }
}
