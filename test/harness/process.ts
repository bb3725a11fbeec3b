import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { captureForLeakScan } from './leak-registry.ts';

/*
 * Every process the harness starts runs under a small bash guard, as leader of its own process group:
 * - stop() sends SIGTERM to the guard, which forwards it to the real process and exits when that one has exited,
 *   so the guard's exit means "the component is gone"; a component that does not stop in time gets SIGKILL on the
 *   whole group;
 * - the guard holds the read end of a pipe whose write end only this Node process has: if Node dies in any way
 *   (even SIGKILL, or a vitest worker being terminated), the pipe closes and the guard kills the component.
 * Together with the exit hook below this leaves no stray process behind.
 */
const guardScript = `
exec 3<&0 0</dev/null
"$@" 3<&- &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM INT
( read -r _ <&3; kill -TERM "$child" 2>/dev/null; sleep 10; kill -KILL "$child" 2>/dev/null ) &
watcher=$!
exec 3<&-
while :; do
  wait "$child"; rc=$?
  kill -0 "$child" 2>/dev/null || break
done
kill "$watcher" 2>/dev/null
exit "$rc"
`;

/** A process started by the harness. */
export interface ManagedProcess {
  /** Short name used in logs and errors. */
  readonly name: string;
  /** Process id of the guard, which leads the process group. */
  readonly pid: number;
  /** File receiving the process's stdout and stderr. */
  readonly logPath: string;
  /** Exit code once the process has exited (null while it runs or when killed by a signal). */
  readonly exitCode: () => number | null | undefined;
  /** Last lines of the log, for error messages. */
  logTail(lines?: number): string;
  /** Stops the process (SIGTERM, then SIGKILL on the group after `graceMs`); resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Map<number, ChildProcess>();
const tempDirs = new Set<string>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  // 'exit' handlers must be synchronous: kill whole groups and remove directories without waiting.
  process.on('exit', () => {
    for (const pid of live.keys()) killGroup(pid, 'SIGKILL');
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Options for {@link startProcess}. */
export interface StartProcessOptions {
  /** Directory for the log file (`<name>.log`). */
  logDir: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Hand the log to the run's leak check (test/harness/leak-registry.ts) under this name when the process stops: for
   * svc's own servers and operators. Peers are left out: OpenBao's dev server prints its root token, by design.
   */
  leakScanAs?: string;
}

/**
 * Starts `command args` under the guard described above, stdout and stderr to `<logDir>/<name>.log`. The returned
 * handle is registered for cleanup at process exit.
 */
export function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  options: StartProcessOptions,
): ManagedProcess {
  hookExit();
  const logPath = join(options.logDir, `${name}.log`);
  const log = openSync(logPath, 'a');
  const child = spawn('bash', ['-c', guardScript, name, command, ...args], {
    detached: true,
    stdio: ['pipe', log, log],
    env: options.env ?? process.env,
    cwd: options.cwd,
  });
  closeSync(log);
  // A spawn failure leaves pid undefined (handled below); without a listener its 'error' event would crash Node.
  child.on('error', () => {});
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${name} (${command})`);
  live.set(pid, child);
  let code: number | null | undefined;
  const exited = new Promise<void>((resolveExit) => {
    child.on('exit', (exitCode) => {
      code = exitCode;
      live.delete(pid);
      resolveExit();
    });
    // The stdin pipe may break when the guard dies; its state is read from 'exit', so nothing else to do here.
    child.stdin?.on('error', () => {});
  });
  const logTail = (lines = 30): string => {
    try {
      return readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };
  return {
    name,
    pid,
    logPath,
    exitCode: () => code,
    logTail,
    async stop(graceMs = 15_000) {
      if (code === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      // Anything left in the group (the guard's watcher) goes too.
      killGroup(pid, 'SIGKILL');
      child.stdin?.destroy();
      if (options.leakScanAs) captureForLeakScan(options.leakScanAs, readFileSync(logPath));
    },
  };
}

const tempPrefix = 'svc-harness-';

/**
 * Creates a temporary directory removed by {@link removeTempDir} or, failing that, when this process exits.
 * The directory name carries this process's pid so {@link sweepStaleTempDirs} can remove leftovers of dead runs.
 */
export function makeTempDir(label: string): string {
  hookExit();
  const dir = mkdtempSync(join(tmpdir(), `${tempPrefix}${process.pid}-${label}-`));
  tempDirs.add(dir);
  return dir;
}

/** Removes a directory made by {@link makeTempDir}. */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** Removes harness temp directories whose creating process no longer exists (left by a killed run). */
export function sweepStaleTempDirs(): void {
  for (const entry of readdirSync(tmpdir())) {
    const match = new RegExp(`^${tempPrefix}(\\d+)-`).exec(entry);
    if (!match) continue;
    const owner = Number(match[1]);
    if (owner === process.pid || isAlive(owner)) continue;
    rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Options for {@link waitUntil}. */
export interface WaitOptions {
  /** What is awaited, for the error message. */
  what: string;
  timeoutMs?: number;
  intervalMs?: number;
  /** Give up early (with its log) when this process exits. */
  process?: ManagedProcess;
}

/**
 * Polls `check` until it returns a value other than undefined/false, and returns that value. Errors thrown by
 * `check` count as "not yet". Throws after the timeout, or as soon as the watched process exits.
 */
export async function waitUntil<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  options: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    const proc = options.process;
    if (proc && proc.exitCode() !== undefined) {
      throw new Error(
        `${proc.name} exited (code ${proc.exitCode()}) while waiting for ${options.what}:\n${proc.logTail()}`,
      );
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      const tail = proc ? `\n${proc.logTail()}` : '';
      throw new Error(`timed out waiting for ${options.what}${detail}${tail}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
}
