/**
 * `npm run bench registry`: the registry client and the tag poller (issue 10), on real registries (Debian
 * docker-registry: anonymous, htpasswd, and token auth with distribution's token server). Writes
 * bench/results/registry.json.
 *
 * - Resolve latency per auth kind: one cold resolve (challenge, token) and `resolves` warm ones (sequential) of a
 *   tag, with the registry requests each needed, counted by a forwarding proxy in front of the registry.
 * - The tag poller's requests: `apps` Follow Apps spread over `tags` tags, their tags moved, one poll; the proxy
 *   counts the registry's requests (one HEAD per tag is the design, not one per App). The Apps are in-memory App
 *   resources served as the server's App cache would; the writes the poll makes are counted, not sent.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { OrgImages } from '../src/api/registries/images.ts';
import { TagPoller } from '../src/api/registries/tag-poller.ts';
import type { AppResource } from '../src/core/app-schema.ts';
import { RegistryClient, type RegistryEndpoint } from '../src/registry/index.ts';
import { Sealer } from '../src/secrets/seal.ts';
import { AuditStore } from '../src/store/audit.ts';
import { openStore } from '../src/store/database.ts';
import { DbLease } from '../src/store/lease.ts';
import { migrateStore } from '../src/store/migrations.ts';
import { RegistryStore } from '../src/store/registries.ts';
import { type Registry, startRegistry } from '../test/harness/index.ts';
import { writeResult } from './lib/results.ts';
import { summarize } from './lib/stats.ts';

export interface RegistryBenchOptions {
  resolves: number;
  apps: number;
  tags: number;
}

const policy = { scope: 'loopback', requireHttps: false } as const;

/** A forwarding proxy in front of a registry that counts the requests it passes, by method. */
async function countingProxy(
  target: string,
): Promise<{ host: string; counts: Map<string, number>; close(): Promise<void> }> {
  const counts = new Map<string, number>();
  const upstream = new URL(`http://${target}`);
  const server: Server = createServer((req, res) => {
    counts.set(req.method ?? '', (counts.get(req.method ?? '') ?? 0) + 1);
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

async function resolveLatency(kind: string, registry: Registry, resolves: number) {
  await registry.pushImage('svc/web', '1.0');
  const proxy = await countingProxy(registry.host);
  try {
    const creds = registry.credentials;
    const endpoint: RegistryEndpoint = {
      host: proxy.host,
      insecure: true,
      ...(creds ? { credentials: { username: creds.user, password: creds.password } } : {}),
    };
    const client = new RegistryClient({ policy });
    let start = performance.now();
    await client.resolve(endpoint, 'svc/web', '1.0');
    const coldMs = performance.now() - start;
    const coldRequests = total(proxy.counts);
    proxy.counts.clear();
    const samples: number[] = [];
    for (let i = 0; i < resolves; i++) {
      start = performance.now();
      await client.resolve(endpoint, 'svc/web', '1.0');
      samples.push(performance.now() - start);
    }
    return {
      kind,
      cold: { ms: Number(coldMs.toFixed(3)), registryRequests: coldRequests },
      warmMs: summarize(samples),
      warmRegistryRequestsPerResolve: total(proxy.counts) / resolves,
    };
  } finally {
    await proxy.close();
  }
}

function followApp(i: number, tags: number, observed: string): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: `app-${i}`, namespace: 'org-bench', uid: `uid-${i}`, resourceVersion: '1', generation: 1 },
    spec: {
      source: {
        type: 'Image',
        image: { registryRef: 'hub', repository: `svc/app-${i % tags}`, tag: 'live', tagPolicy: 'Follow' },
      },
      destination: { namespace: `bench-${i}` },
    },
    status: { observedRevision: observed, revision: observed },
  };
}

async function pollerRequests(registry: Registry, options: RegistryBenchOptions) {
  const proxy = await countingProxy(registry.host);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-registry-'));
  const store = openStore({ kind: 'sqlite', path: join(dir, 'svc.db') });
  try {
    await migrateStore(store);
    const registries = new RegistryStore(store.db, new Sealer(Buffer.alloc(32, 1)));
    const creds = registry.credentials;
    await registries.create({
      orgId: 'bench',
      name: 'hub',
      host: proxy.host,
      insecure: true,
      ca: null,
      username: creds?.user ?? null,
      password: creds?.password ?? null,
    });
    const old: string[] = [];
    for (let t = 0; t < options.tags; t++) old.push((await registry.pushImage(`svc/app-${t}`, 'live')).digest);
    const apps = Array.from({ length: options.apps }, (_, i) =>
      followApp(i, options.tags, old[i % options.tags] ?? ''),
    );
    // Every tag moves: each App must be redeployed.
    for (let t = 0; t < options.tags; t++) await registry.pushImage(`svc/app-${t}`, 'live');
    let writes = 0;
    const poller = new TagPoller({
      kube: {
        all: async () => apps,
        get: async (_ns, name) => apps.find((a) => a.metadata.name === name),
        mergePatch: async (_ns, name) => {
          writes++;
          return apps.find((a) => a.metadata.name === name) as AppResource;
        },
      },
      orgOf: async () => 'bench',
      images: new OrgImages(registries, new RegistryClient({ policy })),
      audit: new AuditStore(store.db),
      logger: pino({ level: 'silent' }),
      intervalMs: 300_000,
      lease: new DbLease(store.db, { name: 'tag-poller', holder: 'bench', ttlMs: 30_000 }),
    });
    // The first poll of a fresh client also learns each registry's challenge; later polls are the steady state.
    const polls = [];
    for (const label of ['first (cold client)', 'second (steady state)']) {
      proxy.counts.clear();
      writes = 0;
      const start = performance.now();
      const report = await poller.poll({ trigger: 'poll' });
      polls.push({
        poll: label,
        registryRequests: Object.fromEntries(proxy.counts),
        registryRequestsTotal: total(proxy.counts),
        resolvedGroups: report.resolved,
        deploysWritten: report.deployed.length,
        operationWrites: writes,
        pollMs: Number((performance.now() - start).toFixed(1)),
      });
    }
    return { apps: options.apps, tags: options.tags, polls };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    await proxy.close();
  }
}

/** Runs both measurements and writes the result file; returns its path. */
export async function registryBench(options: RegistryBenchOptions, log: (line: string) => void): Promise<string> {
  const kinds = [
    { kind: 'anonymous', start: () => startRegistry() },
    { kind: 'basic', start: () => startRegistry({ htpasswd: { user: 'svc', password: 'bench-basic' } }) },
    { kind: 'bearer', start: () => startRegistry({ token: { user: 'svc', password: 'bench-token' } }) },
  ];
  const latency = [];
  let poller: Awaited<ReturnType<typeof pollerRequests>> | undefined;
  for (const k of kinds) {
    const registry = await k.start();
    try {
      log(`resolve latency: ${k.kind}`);
      latency.push(await resolveLatency(k.kind, registry, options.resolves));
      if (k.kind === 'bearer') {
        log(`poller: ${options.apps} Follow Apps on ${options.tags} tags`);
        poller = await pollerRequests(registry, options);
      }
    } finally {
      await registry.stop();
    }
  }
  return writeResult('registry', {
    parameters: options,
    method:
      'registries on loopback (Debian docker-registry 2.8; bearer: distribution contrib/token-server), plain http, a counting proxy in front; warm resolves are sequential; the poller runs one poll after every tag moved',
    resolveLatency: latency,
    poller,
  });
}
