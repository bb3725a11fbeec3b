/** The real `svc` executable (bin/svc.js) run as a user runs it, for the command-line tests. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.ts';

/** bin/svc.js of this checkout. */
export const SVC_BIN: string = join(repoRoot, 'bin/svc.js');

/** How a run of `svc` ended. */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc args` with exactly `env` (no stdin) and resolves once it exits. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
