/**
 * `node bench/profile.ts <file.cpuprofile> [top]`: summarizes a V8 CPU profile (from `--cpu-prof`): self time by
 * function and by file, and total (inclusive) time of svc's own functions, so a README can say where time goes.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfMs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
});
const totalMs = (profile.endTime - profile.startTime) / 1000;

const short = (url: string) =>
  url.replace(/^file:\/\/.*?\/(src|node_modules|bench|test)\//, '$1/').replace(/^node:/, 'node:') || '(native)';
const label = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
const selfByFn = new Map<string, number>();
const selfByFile = new Map<string, number>();
const inclusiveOurs = new Map<string, number>();
for (const [id, ms] of selfMs) {
  const n = byId.get(id);
  if (!n) continue;
  add(selfByFn, label(n), ms);
  const pkg = short(n.callFrame.url).replace(/^(node_modules\/(@[^/]+\/)?[^/]+).*/, '$1');
  add(selfByFile, pkg, ms);
  // Inclusive time of svc's own functions: walk up once per distinct frame.
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const node = byId.get(cur);
    if (!node?.callFrame.url.includes('/src/')) continue;
    const key = label(node);
    if (!seen.has(key)) add(inclusiveOurs, key, ms);
    seen.add(key);
  }
}

const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [key, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / totalMs).toFixed(1).padStart(5)}%  ${key}`);
  }
};
console.log(`profile ${file}: ${totalMs.toFixed(0)} ms wall, ${profile.samples.length} samples`);
print('self time by file or package', selfByFile);
print('self time by function', selfByFn);
print("inclusive time of svc's functions", inclusiveOurs);
