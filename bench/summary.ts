/**
 * `node bench/summary.ts`: prints the latest figures of bench/results/*.json as Markdown tables (for
 * bench/README.md), with each target and whether it is met.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultsDir } from './lib/results.ts';

// biome-ignore lint/suspicious/noExplicitAny: result files are free-form JSON written by bench/ itself
type Json = Record<string, any>;
const read = (file: string): Json | undefined => {
  const path = join(resultsDir, file);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Json) : undefined;
};
const ok = (met: boolean | undefined) => (met === undefined ? '–' : met ? 'met' : '**missed**');
const fmt = (x: unknown, unit = '') => (typeof x === 'number' ? `${x}${unit}` : '–');

const converge = readdirSync(resultsDir)
  .filter((f) => /^converge-\d+\.json$/.test(f))
  .map((f) => read(f) as Json)
  .sort((a, b) => a['summary'].n - b['summary'].n);
if (converge.length > 0) {
  console.log(
    '| N | ours | limit | ours ÷ limit | operator peak RSS | operator CPU s (+ children) | plane CPU s ours / limit | steady state, cores busy: operator + children + plane | load avg at end | run at |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of converge) {
    const s = r['summary'];
    const sum = (o: Json | undefined) =>
      o
        ? Number(
            Object.values(o as Record<string, number>)
              .reduce((a, b) => a + b, 0)
              .toFixed(1),
          )
        : undefined;
    console.log(
      `| ${s.n} | ${s.oursSeconds === undefined ? '–' : s.oursSeconds === null ? `timeout (${s.oursCompleted}/${s.n})` : `${s.oursSeconds} s`} | ${fmt(s.limitSeconds, ' s')} | ${fmt(s.oursOverLimit, '×')} | ${fmt(s.operatorPeakRssMiB, ' MiB')} | ${fmt(s.operatorCpuSeconds)} (+${fmt(r['ours']?.operator?.childCpuSeconds)}) | ${fmt(sum(r['ours']?.planeCpuSeconds))} / ${fmt(sum(r['limit']?.planeCpuSeconds))} | ${s.steadyOperatorCpuPerSecond === undefined ? '–' : `${s.steadyOperatorCpuPerSecond} + ${s.steadyChildCpuPerSecond} + ${s.steadyPlaneCpuPerSecond}`} | ${r['machine'].loadAverage1m5m15m?.[0] ?? '–'} | ${r['finishedAt'].slice(0, 16)} |`,
    );
  }
  const big = converge.find((r) => r['summary'].n === 1000)?.['summary'];
  console.log('');
  console.log(
    `- 1000 Apps under 60 s: ${ok(big && big.oursSeconds !== null ? big.oursSeconds < 60 : big ? false : undefined)}`,
  );
  console.log(`- operator RSS under 300 MiB at 1000 Apps: ${ok(big ? big.operatorPeakRssMiB < 300 : undefined)}`);
  console.log(
    `- within 1.5× of the limit: ${ok(converge.every((r) => r['summary'].oursOverLimit !== undefined) ? converge.every((r) => r['summary'].oursOverLimit <= 1.5) : undefined)}`,
  );
  console.log('');
}

const push = read('push.json');
if (push) {
  const s = push['summary'];
  console.log(
    '| push: Apps × rounds | receiver answered (s, per round) | revision applied p50 | p95 | max | Synced+Healthy at it p95 | operator peak RSS |',
  );
  console.log('|---|---|---|---|---|---|---|');
  const answered = (push['rounds'] as Json[]).map((r) => r['receiverAnsweredSeconds']).join(', ');
  console.log(
    `| ${s.apps} × ${s.rounds} | ${answered} | ${s.revisionApplied.p50} s | ${s.revisionApplied.p95} s | ${s.revisionApplied.max} s | ${s.syncedHealthy.p95} s | ${fmt(s.operatorPeakRssMiB, ' MiB')} |`,
  );
  console.log('');
  console.log(`- push p95 under 2 s: ${ok(s.revisionApplied.p95 < 2)}`);
  console.log('');
}

const api = read('api.json');
if (api) {
  console.log(`| api (${api['parameters'].apps} Apps) | connections | requests/s | p50 | p99 | statuses |`);
  console.log('|---|---|---|---|---|---|');
  for (const r of api['summary'] as Json[]) {
    console.log(
      `| ${r['route']} | ${r['connections']} | ${r['requestsPerSecond']} | ${r['p50Ms']} ms | ${r['p99Ms']} ms | ${JSON.stringify(r['statuses'])} |`,
    );
  }
  const list = (api['summary'] as Json[]).find((r) => r['route'] === 'GET /api/v1/apps' && r['connections'] === 1);
  console.log('');
  console.log(
    `- GET /apps at 1000 Apps p99 under 50 ms (1 connection): ${ok(api['parameters'].apps >= 1000 && list ? list['p99Ms'] < 50 : undefined)}`,
  );
}
