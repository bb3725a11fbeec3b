/**
 * Resource use of a running process from /proc (Linux): peak resident set (VmHWM), current RSS and CPU seconds
 * (utime + stime), sampled on an interval so a run records both the peak and the curve.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

const ticksPerSecond = 100; // USER_HZ: 100 on every Linux this runs on

/** One reading of a process. */
export interface ProcSample {
  /** Seconds since sampling started. */
  t: number;
  rssMiB: number;
  hwmMiB: number;
  cpuSeconds: number;
  /** CPU seconds of its exited, waited-for children (kustomize, git): cutime + cstime. */
  childCpuSeconds: number;
}

/** Reads /proc/<pid>; undefined once the process is gone. */
export function readProc(pid: number): Omit<ProcSample, 't'> | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    // Fields after the command name (which may hold spaces) are split from the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    const childTicks = Number(fields[13]) + Number(fields[14]);
    return {
      rssMiB: Number((kb('VmRSS') / 1024).toFixed(1)),
      hwmMiB: Number((kb('VmHWM') / 1024).toFixed(1)),
      cpuSeconds: (utime + stime) / ticksPerSecond,
      childCpuSeconds: childTicks / ticksPerSecond,
    };
  } catch {
    return undefined;
  }
}

/** The direct children of `pid` (from /proc/<pid>/task/<pid>/children). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Samples `pid` every `intervalMs` until stopped; `stop()` returns every sample plus a final one. */
export function sampleProcess(pid: number, intervalMs = 500) {
  const started = performance.now();
  const samples: ProcSample[] = [];
  const take = () => {
    const s = readProc(pid);
    if (s) samples.push({ t: Number(((performance.now() - started) / 1000).toFixed(2)), ...s });
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    /** The latest sample. */
    last: (): ProcSample | undefined => samples.at(-1),
    stop(): ProcSample[] {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/**
 * CPU seconds of every process whose command line mentions `marker` (a control plane's directory appears in the
 * arguments of each of its components), by executable name; guards (bash) are left out.
 */
export function cpuByCommand(marker: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const exe = basename(argv[0] ?? '');
      if (exe === 'bash' || !argv.some((arg) => arg.includes(marker))) continue;
      const sample = readProc(Number(entry));
      if (sample) out[exe] = Number(((out[exe] ?? 0) + sample.cpuSeconds).toFixed(2));
    } catch {
      // The process ended while being read.
    }
  }
  return out;
}

/** `after - before` per key (keys that did not move are left out), rounded to centiseconds. */
export function cpuDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(after)) {
    const delta = Number((value - (before[key] ?? 0)).toFixed(2));
    if (delta !== 0) out[key] = delta;
  }
  return out;
}
