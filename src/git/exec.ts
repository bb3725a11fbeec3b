/**
 * Runs external binaries (git, tar, kustomize, helm) without a shell: arguments are passed as an array, output is
 * collected, a timeout kills the process, and a non-zero exit becomes an ExecError carrying stderr.
 */
import { spawn } from 'node:child_process';

/**
 * The only environment children get: enough to find binaries and a home for their caches. Never the operator's
 * own variables (AUTH_SECRET, SVC_CREDENTIALS_KEY, ... in `svc start`): git, kustomize and helm run on content from
 * repositories svc does not control, and no renderer feature (env files, plugins, future template functions)
 * should ever be able to copy a credential into a rendered object.
 */
const CHILD_ENV_KEYS = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'SSL_CERT_FILE', 'SSL_CERT_DIR'];
let childEnv: Record<string, string> | undefined;

/** The allowlisted environment every child process of svc's renderers and git runs with. */
export function childEnvironment(): Record<string, string> {
  if (!childEnv) {
    // Pass-through of a fixed allowlist, read once; settings of svc itself still come only from src/config.ts.
    const source = process.env;
    childEnv = Object.fromEntries(
      CHILD_ENV_KEYS.filter((k) => source[k] !== undefined).map((k) => [k, source[k] as string]),
    );
  }
  return childEnv;
}

export interface ExecOptions {
  cwd?: string;
  /** Kills the process after this many milliseconds (default 120 s). */
  timeoutMs?: number;
  /** Bytes written to the child's stdin, then closed. */
  input?: string | Buffer;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
}

/** A child process that failed to start, exited non-zero or timed out. `stderr` is the child's own words. */
export class ExecError extends Error {
  readonly command: string;
  readonly exitCode: number | null;
  readonly stderr: string;
  constructor(command: string, exitCode: number | null, stderr: string, cause?: unknown) {
    const detail = stderr.trim().split('\n').slice(-5).join('\n') || (cause instanceof Error ? cause.message : '');
    super(`${command} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${detail}`, { cause });
    this.name = 'ExecError';
    this.command = command;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** The last non-empty line of a child's output (its usual way of saying why it failed), or 'unknown error'. */
export function lastLine(text: string): string {
  const lines = text
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '');
  return lines.at(-1) ?? 'unknown error';
}

/**
 * Runs `file args...` and resolves with its output when it exits 0; rejects with ExecError otherwise.
 * Output is decoded as UTF-8.
 */
export function execFile(file: string, args: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 120_000,
      killSignal: 'SIGKILL',
      env: childEnvironment(),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new ExecError(file, null, Buffer.concat(err).toString('utf8'), e)));
    child.on('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === 0) resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr });
      else
        reject(
          new ExecError(`${file} ${args[0] ?? ''}`.trim(), code, signal ? `${stderr}\nkilled by ${signal}` : stderr),
        );
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}
