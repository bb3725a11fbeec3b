/**
 * `npm run bench [name...] [-- --n=100,1000,5000 --cpu-prof --limit-only]`: runs the named benchmarks (converge,
 * push, api and appset by default; rss, registry, ui, health, drift, scale and soak on request) and writes
 * bench/results/*.json. Never part of `npm test`.
 */
import { parseArgs } from 'node:util';
import { api } from './api.ts';
import { appSetBench } from './appset.ts';
import { converge } from './converge.ts';
import { drift } from './drift.ts';
import { health } from './health.ts';
import { push } from './push.ts';
import { registryBench } from './registry.ts';
import { rss } from './rss.ts';
import { scale } from './scale.ts';
import { soak } from './soak.ts';
import { ui } from './ui.ts';

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

const { values, positionals } = parseArgs({
  allowPositionals: true,
  allowNegative: true,
  options: {
    n: { type: 'string', default: '100,1000,5000' },
    // The operator's reconcile workers (src/operator/controller.ts).
    concurrency: { type: 'string', default: '8' },
    'cpu-prof': { type: 'boolean', default: false },
    'limit-only': { type: 'boolean', default: false },
    limit: { type: 'boolean', default: true },
    steady: { type: 'string', default: '60' },
    'sync-period': { type: 'string' },
    // Flux's kustomize-controller beside svc in converge (built into ~/.cache/svc on first use; needs go).
    flux: { type: 'boolean', default: true },
    'flux-concurrent': { type: 'string', default: '20' },
    // converge: Git Apps, HelmChart Apps (the same objects as a chart), or both, one result file each.
    source: { type: 'string', default: 'git,helm' },
    'flux-wait': { type: 'boolean', default: true },
    // Seconds per wait; default 900, or 0.6 s per App when more (Flux at 5000 Apps takes ~20 min).
    timeout: { type: 'string' },
    // push: Apps on the pushed repository; without --apps and --among, both 100 of 100 and 1 of 1000 run.
    apps: { type: 'string' },
    // push: the pushed Apps among this many in all (the others on a repository nobody pushes to).
    among: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    'api-apps': { type: 'string', default: '1000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '1,10' },
    'rss-apps': { type: 'string', default: '200' },
    idle: { type: 'string', default: '20' },
    resolves: { type: 'string', default: '200' },
    'follow-apps': { type: 'string', default: '1000' },
    'follow-tags': { type: 'string', default: '10' },
    'ui-apps': { type: 'string', default: '10000' },
    clients: { type: 'string', default: '100' },
    updates: { type: 'string', default: '1000' },
    'ui-rounds': { type: 'string', default: '5' },
    // health: objects per kind (ten kinds) and assessment rounds.
    'health-objects': { type: 'string', default: '100' },
    'health-rounds': { type: 'string', default: '10' },
    // drift: selfHealing Apps in all, and how many drift at once (one measurement each).
    'drift-among': { type: 'string', default: '1000' },
    drifted: { type: 'string', default: '1,100' },
    // scale: Apps, operator replica counts (one fresh plane each), workload (configmap or deployment).
    'scale-apps': { type: 'string', default: '20000' },
    replicas: { type: 'string', default: '1,2,4' },
    'scale-fixture': { type: 'string', default: 'configmap' },
    // soak: Apps, minutes of churn, seconds between churn actions, Apps per edit/deletion batch, repositories.
    'soak-apps': { type: 'string', default: '5000' },
    minutes: { type: 'string', default: '60' },
    tick: { type: 'string', default: '20' },
    'restart-minutes': { type: 'string', default: '15' },
    batch: { type: 'string', default: '50' },
    repositories: { type: 'string', default: '10' },
    // appset: also the same Apps created directly (--no-appset-direct: the AppSet only).
    'appset-direct': { type: 'boolean', default: true },
    'appset-n': { type: 'string', default: '1000' },
  },
});

/** The wait timeout for `n` Apps, in ms: --timeout when given, else 900 s or 0.6 s per App, whichever is more. */
const timeoutFor = (n: number) => (values.timeout ? Number(values.timeout) : Math.max(900, n * 0.6)) * 1000;

const all = ['converge', 'push', 'api', 'rss', 'registry', 'ui', 'health', 'drift', 'appset', 'scale', 'soak'] as const;
type Name = (typeof all)[number];
const onRequest: readonly Name[] = ['rss', 'registry', 'ui', 'health', 'drift', 'scale', 'soak'];
const names = (positionals.length > 0 ? positionals : all.filter((n) => !onRequest.includes(n))) as Name[];
for (const name of names) {
  if (!all.includes(name)) {
    console.error(`unknown benchmark "${name}"; known: ${all.join(', ')}`);
    process.exit(2);
  }
}

for (const name of names) {
  if (name === 'converge') {
    for (const [n, source] of values.n
      .split(',')
      .map(Number)
      .flatMap((n) => values.source.split(',').map((s) => [n, s as 'git' | 'helm'] as const))) {
      const file = await converge(
        {
          n,
          source,
          concurrency: Number(values.concurrency),
          createConcurrency: 8,
          timeoutMs: timeoutFor(n),
          cpuProfile: values['cpu-prof'],
          limitOnly: values['limit-only'],
          noLimit: !values.limit,
          steadySeconds: Number(values.steady),
          ...(values['sync-period'] ? { syncPeriod: values['sync-period'] } : {}),
          ...(values.flux
            ? { flux: { concurrent: Number(values['flux-concurrent']), wait: values['flux-wait'] } }
            : {}),
        },
        log,
      );
      log(`wrote ${file}`);
    }
  } else if (name === 'push') {
    const shapes =
      values.apps || values.among
        ? [{ apps: Number(values.apps ?? 100), among: Number(values.among ?? values.apps ?? 100) }]
        : [
            { apps: 100, among: 100 },
            { apps: 1, among: 1000 },
          ];
    for (const shape of shapes) {
      const file = await push(
        {
          ...shape,
          rounds: Number(values.rounds),
          timeoutMs: timeoutFor(shape.among),
          cpuProfile: values['cpu-prof'],
          noLimit: !values.limit,
          ...(values.flux ? { flux: { concurrent: Number(values['flux-concurrent']) } } : {}),
        },
        log,
      );
      log(`wrote ${file}`);
    }
  } else if (name === 'appset') {
    // One AppSet generating N Apps, beside the same N Apps created directly.
    for (const n of values['appset-n'].split(',').map(Number)) {
      const options = {
        n,
        timeoutMs: timeoutFor(n),
        createConcurrency: 8,
        noDirect: values['appset-direct'] === false,
      };
      log(`wrote ${await appSetBench(options, log)}`);
    }
  } else if (name === 'drift') {
    const among = Number(values['drift-among']);
    const options = {
      among,
      drifted: values.drifted.split(',').map(Number),
      rounds: Number(values.rounds),
      steadySeconds: Number(values.steady),
      timeoutMs: timeoutFor(among),
    };
    log(`wrote ${await drift(options, log)}`);
  } else if (name === 'scale') {
    const n = Number(values['scale-apps']);
    const fixture = values['scale-fixture'] === 'deployment' ? 'deployment' : 'configmap';
    const options = {
      n,
      replicas: values.replicas.split(',').map(Number),
      fixture,
      steadySeconds: Number(values.steady),
      timeoutMs: timeoutFor(n),
      createConcurrency: 8,
    } as const;
    log(`wrote ${await scale(options, log)}`);
  } else if (name === 'soak') {
    const apps = Number(values['soak-apps']);
    const options = {
      apps,
      minutes: Number(values.minutes),
      tickSeconds: Number(values.tick),
      restartMinutes: Number(values['restart-minutes']),
      batch: Number(values.batch),
      repositories: Number(values.repositories),
      timeoutMs: timeoutFor(apps),
    };
    log(`wrote ${await soak(options, log)}`);
  } else if (name === 'registry') {
    const options = {
      resolves: Number(values.resolves),
      apps: Number(values['follow-apps']),
      tags: Number(values['follow-tags']),
    };
    log(`wrote ${await registryBench(options, log)}`);
  } else if (name === 'health') {
    const options = { perKind: Number(values['health-objects']), rounds: Number(values['health-rounds']) };
    log(`wrote ${await health(options, log)}`);
  } else if (name === 'rss') {
    log(
      `wrote ${await rss({ apps: Number(values['rss-apps']), idleSeconds: Number(values.idle), timeoutMs: timeoutFor(0) }, log)}`,
    );
  } else if (name === 'ui') {
    log(
      `wrote ${await ui({ apps: Number(values['ui-apps']), clients: Number(values.clients), updates: Number(values.updates), rounds: Number(values['ui-rounds']) }, log)}`,
    );
  } else {
    const connections = values.connections.split(',').map(Number);
    log(
      `wrote ${await api({ apps: Number(values['api-apps']), durationSeconds: Number(values.duration), connections, cpuProfile: values['cpu-prof'] }, log)}`,
    );
  }
}
// Harness processes are stopped; make sure no stray handle keeps the process alive.
process.exit(0);
