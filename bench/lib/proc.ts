/**
 * Resource use of a running process from /proc (Linux): peak resident set (VmHWM), current RSS and CPU seconds
 * (utime + stime), sampled on an interval so a run records both the peak and the curve.
 */
import { readFileSync } from 'node:fs';

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
