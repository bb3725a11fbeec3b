/**
 * `node bench/summary.ts [--write]`: prints the latest figures of bench/results/*.json as Markdown tables, with
 * each target and whether it is met; `--write` puts them into bench/README.md between the figures markers.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultsDir } from './lib/results.ts';

const lines: string[] = [];
const emit = (line: string) => lines.push(line);

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
  emit(
    '| N | ours | limit | ours ÷ limit | operator peak RSS | operator CPU s (+ children) | plane CPU s ours / limit | steady state, cores busy: operator + children + plane | load avg at end | run at |',
  );
  emit('|---|---|---|---|---|---|---|---|---|---|');
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
    emit(
      `| ${s.n} | ${s.oursSeconds === undefined ? '–' : s.oursSeconds === null ? `timeout (${s.oursCompleted}/${s.n})` : `${s.oursSeconds} s`} | ${fmt(s.limitSeconds, ' s')} | ${fmt(s.oursOverLimit, '×')} | ${fmt(s.operatorPeakRssMiB, ' MiB')} | ${fmt(s.operatorCpuSeconds)} (+${fmt(r['ours']?.operator?.childCpuSeconds)}) | ${fmt(sum(r['ours']?.planeCpuSeconds))} / ${fmt(sum(r['limit']?.planeCpuSeconds))} | ${s.steadyOperatorCpuPerSecond === undefined ? '–' : `${s.steadyOperatorCpuPerSecond} + ${s.steadyChildCpuPerSecond} + ${s.steadyPlaneCpuPerSecond}`} | ${r['machine'].loadAverage1m5m15m?.[0] ?? '–'} | ${r['finishedAt'].slice(0, 16)} |`,
    );
  }
  const big = converge.find((r) => r['summary'].n === 1000)?.['summary'];
  emit('');
  emit(
    `- 1000 Apps under 60 s: ${ok(big && big.oursSeconds !== null ? big.oursSeconds < 60 : big ? false : undefined)}`,
  );
  emit(`- operator RSS under 300 MiB at 1000 Apps: ${ok(big ? big.operatorPeakRssMiB < 300 : undefined)}`);
  emit(
    `- within 1.5× of the limit: ${ok(converge.every((r) => r['summary'].oursOverLimit !== undefined) ? converge.every((r) => r['summary'].oursOverLimit <= 1.5) : undefined)}`,
  );
  emit('');
  const sideBySide = converge.filter((r) => r['flux']);
  if (sideBySide.length > 0) {
    emit(
      '| N, one run | svc | Flux kustomize-controller | limit | Flux ÷ svc | svc ÷ limit | peak RSS svc / Flux | CPU s svc / Flux | Flux flags | load avg at end |',
    );
    emit('|---|---|---|---|---|---|---|---|---|---|');
    for (const r of sideBySide) {
      const s = r['summary'];
      const timed = (x: number | null | undefined, done: number | undefined) =>
        x === undefined ? '–' : x === null ? `timeout (${done}/${s.n})` : `${x} s`;
      emit(
        `| ${s.n} | ${timed(s.oursSeconds, s.oursCompleted)} | ${timed(s.fluxSeconds, s.fluxCompleted)} | ${fmt(s.limitSeconds, ' s')} | ${fmt(s.fluxOverOurs, '×')} | ${fmt(s.oursOverLimit, '×')} | ${fmt(s.operatorPeakRssMiB)} / ${fmt(s.fluxPeakRssMiB)} MiB | ${fmt(s.operatorCpuSeconds)} / ${fmt(s.fluxCpuSeconds)} | \`${(r['flux'].flags as string[]).filter((f) => /concurrent|qps|burst|requeue/.test(f)).join(' ')}\`, wait: ${r['flux'].kustomization.wait} | ${r['machine'].loadAverage1m5m15m?.[0] ?? '–'} |`,
      );
    }
    emit('');
    emit(
      `- at least 3× faster than Flux at every N measured: ${ok(sideBySide.every((r) => typeof r['summary'].fluxOverOurs === 'number') ? sideBySide.every((r) => r['summary'].fluxOverOurs >= 3) : undefined)}`,
    );
  }
  emit(
    `- converge ≤ 1.3× the limit at 1000 Apps: ${ok(big?.oursOverLimit === undefined ? undefined : big.oursOverLimit <= 1.3)}`,
  );
  emit(`- operator peak RSS ≤ 150 MiB at 1000 Apps: ${ok(big ? big.operatorPeakRssMiB <= 150 : undefined)}`);
  const huge = converge.find((r) => r['summary'].n === 5000)?.['summary'];
  const steady5000 =
    huge?.steadyOperatorCpuPerSecond === undefined
      ? undefined
      : Number((huge.steadyOperatorCpuPerSecond + (huge.steadyChildCpuPerSecond ?? 0)).toFixed(3));
  emit(
    `- steady state at 5000 Apps below 10 % of one core (operator and its children): ${ok(steady5000 === undefined ? undefined : steady5000 < 0.1)}${steady5000 === undefined ? '' : ` (${(steady5000 * 100).toFixed(1)} %)`}`,
  );
  const perApp = converge
    .filter((r) => r['ours']?.operator?.peakRssMiB !== undefined && r['ours']?.operator?.idleRssMiB !== undefined)
    .map((r) => {
      const o = r['ours'].operator;
      return `${r['summary'].n}: ${(((o.peakRssMiB - o.idleRssMiB) / r['summary'].n) * 1024).toFixed(0)} KiB`;
    });
  if (perApp.length > 0) emit(`- operator memory per App, (peak − idle RSS) ÷ N: ${perApp.join(', ')}`);
  emit('');
}

const pushes = readdirSync(resultsDir)
  .filter((f) => /^push(-\d+-of-\d+)?\.json$/.test(f))
  .map((f) => read(f) as Json)
  .sort((a, b) => (a['summary'].among ?? a['summary'].apps) - (b['summary'].among ?? b['summary'].apps));
if (pushes.length > 0) {
  emit(
    '| push: Apps pushed of all × rounds | receiver answered (s, per round) | svc: revision applied p50 | p95 | max | Synced+Healthy at it p95 | Flux: applied p50 | p95 | Ready at it p95 | Flux ÷ svc (applied p95) | peak RSS svc / Flux | load avg at end |',
  );
  emit('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const push of pushes) {
    const s = push['summary'];
    const answered = (push['rounds'] as Json[]).map((r) => r['receiverAnsweredSeconds']).join(', ');
    const fluxP95 = s.fluxRevisionApplied?.p95;
    emit(
      `| ${s.apps} of ${s.among ?? s.apps} × ${s.rounds} | ${answered} | ${s.revisionApplied.p50} s | ${s.revisionApplied.p95} s | ${s.revisionApplied.max} s | ${s.syncedHealthy.p95} s | ${fmt(s.fluxRevisionApplied?.p50, ' s')} | ${fmt(fluxP95, ' s')} | ${fmt(s.fluxReady?.p95, ' s')} | ${typeof fluxP95 === 'number' ? `${(fluxP95 / s.revisionApplied.p95).toFixed(1)}×` : '–'} | ${fmt(s.operatorPeakRssMiB)} / ${fmt(s.fluxPeakRssMiB)} MiB | ${push['machine'].loadAverage1m5m15m?.[0] ?? '–'} |`,
    );
  }
  const hundred = pushes.find((p) => p['summary'].apps === 100 && (p['summary'].among ?? 100) === 100)?.['summary'];
  emit('');
  emit(
    `- push → applied p95 ≤ 2 s for 100 Apps on one repository: ${ok(hundred ? hundred.revisionApplied.p95 <= 2 : undefined)}`,
  );
  emit('');
}

const api = read('api.json');
if (api) {
  emit(`| api (${api['parameters'].apps} Apps) | connections | requests/s | p50 | p99 | statuses |`);
  emit('|---|---|---|---|---|---|');
  for (const r of api['summary'] as Json[]) {
    emit(
      `| ${r['route']} | ${r['connections']} | ${r['requestsPerSecond']} | ${r['p50Ms']} ms | ${r['p99Ms']} ms | ${JSON.stringify(r['statuses'])} |`,
    );
  }
  const list = (api['summary'] as Json[]).find((r) => r['route'] === 'GET /api/v1/apps' && r['connections'] === 1);
  emit('');
  emit(
    `- GET /apps at 1000 Apps p99 under 50 ms (1 connection): ${ok(api['parameters'].apps >= 1000 && list ? list['p99Ms'] < 50 : undefined)}`,
  );
}

const text = lines.join('\n');
if (process.argv.includes('--write')) {
  const readme = join(resultsDir, '..', 'README.md');
  const start = '<!-- figures:start -->';
  const end = '<!-- figures:end -->';
  const doc = readFileSync(readme, 'utf8');
  const a = doc.indexOf(start);
  const b = doc.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${readme} lacks the ${start} / ${end} markers`);
  writeFileSync(readme, `${doc.slice(0, a + start.length)}\n${text}\n${doc.slice(b)}`);
} else {
  console.log(text);
}
