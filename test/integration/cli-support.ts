/**
 * Running the real `svc` executable (or a command wrapping it) from a test: its path, and a runner that collects the
 * output as it comes and tells when the process ended.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../harness/index.ts';

/** The start of an ANSI escape sequence (ESC [). */
export const ESCAPE = new RegExp(`${String.fromCharCode(27)}\\[`);
/** The cursor-up sequence a spinner redraws with (ESC [ 1 A). */
export const CURSOR_UP = `${String.fromCharCode(27)}[1A`;

/** The `svc` executable of this checkout. */
export const SVC = join(repoRoot, 'bin/svc.js');

/** What a run printed and how it ended. */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** performance.now() when it exited (0 while it runs). */
  endedAt: number;
  /** How long it ran, ms. */
  ms: number;
}

/** A started run: the process, its output so far, and its end. */
export interface StartedRun {
  child: ChildProcess;
  output: CliRun;
  exited: Promise<CliRun>;
}

/** Starts `command` (argv) with exactly `env`, stdin closed; `output` fills as it runs. */
export function startCommand(command: readonly string[], env: Record<string, string>): StartedRun {
  const started = performance.now();
  const output: CliRun = { status: null, stdout: '', stderr: '', endedAt: 0, ms: 0 };
  const child = spawn(command[0] as string, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => {
    output.stdout += String(d);
  });
  child.stderr?.on('data', (d) => {
    output.stderr += String(d);
  });
  const exited = new Promise<CliRun>((resolve) =>
    child.on('close', (code) => {
      output.status = code;
      output.endedAt = performance.now();
      output.ms = output.endedAt - started;
      resolve(output);
    }),
  );
  return { child, output, exited };
}

/** Starts `svc args` under this test process's Node with exactly `env`. */
export function startSvc(args: readonly string[], env: Record<string, string>): StartedRun {
  return startCommand([process.execPath, SVC, ...args], env);
}
