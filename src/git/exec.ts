/**
 * Runs external binaries (git, tar, kustomize, helm) without a shell: arguments are passed as an array, output is
 * collected, a timeout kills the process, and a non-zero exit becomes an ExecError carrying stderr.
 */
import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { inSpan } from '../trace.ts';

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
  /** Kills the process once its standard output exceeds this many bytes (default: no bound). */
  maxOutputBytes?: number;
  /** Bytes written to the child's stdin, then closed. */
  input?: string | Buffer;
  /** Variables added to the allowlisted environment for this child only (e.g. GIT_SSH_COMMAND). */
  env?: Record<string, string>;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
}

/**
 * A child process that failed to start, exited non-zero or was stopped. `stderr` is the child's own words;
 * `limit` says which bound of ExecOptions stopped it (its stderr then ends with a line saying so).
 */
export class ExecError extends Error {
  readonly command: string;
  readonly exitCode: number | null;
  readonly stderr: string;
  readonly limit: 'timeout' | 'output' | undefined;
  constructor(command: string, exitCode: number | null, stderr: string, cause?: unknown, limit?: 'timeout' | 'output') {
    const detail = stderr.trim().split('\n').slice(-5).join('\n') || (cause instanceof Error ? cause.message : '');
    super(`${command} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${detail}`, { cause });
    this.name = 'ExecError';
    this.command = command;
    this.exitCode = exitCode;
    this.stderr = stderr;
    this.limit = limit;
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
 * Runs `file args...` and resolves with its output when it exits 0; rejects with ExecError otherwise. The process
 * is killed (SIGKILL) when it runs longer than `timeoutMs` or writes more than `maxOutputBytes` to stdout; the
 * ExecError's last stderr line then says "timed out after …" or "output exceeded … bytes" and `limit` is set.
 * Output is decoded as UTF-8.
 */
export function execFile(file: string, args: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
  // The span names the program and its subcommand, never the other arguments (a URL may carry a credential).
  const program = basename(file);
  const subcommand = args.find((a) => /^[a-z][a-z-]*$/.test(a)) ?? '';
  return inSpan(`exec ${program} ${subcommand}`.trim(), { 'process.executable.name': program }, () =>
    run(file, args, options),
  );
}

/** execFile without its span. */
function run(file: string, args: readonly string[], options: ExecOptions): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 120_000;
    const env = options.env ? { ...childEnvironment(), ...options.env } : childEnvironment();
    const child = spawn(file, args, { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'], env });
    let limit: 'timeout' | 'output' | undefined;
    const stop = (why: 'timeout' | 'output') => {
      limit ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    child.stdout.on('data', (b: Buffer) => {
      outBytes += b.length;
      // Past the bound nothing more is kept: memory stays at the bound however much the child writes.
      if (options.maxOutputBytes !== undefined && outBytes > options.maxOutputBytes) stop('output');
      else out.push(b);
    });
    let errBytes = 0;
    child.stderr.on('data', (b: Buffer) => {
      // Only the end of stderr is ever shown; 1 MiB of it is plenty and bounds memory.
      errBytes += b.length;
      if (errBytes <= 1024 * 1024) err.push(b);
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new ExecError(file, null, Buffer.concat(err).toString('utf8'), e));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8');
      const command = `${file} ${args[0] ?? ''}`.trim();
      if (limit === 'timeout') {
        reject(new ExecError(command, null, `${stderr}\ntimed out after ${timeoutMs} ms`, undefined, 'timeout'));
      } else if (limit === 'output') {
        const why = `output exceeded ${options.maxOutputBytes} bytes`;
        reject(new ExecError(command, null, `${stderr}\n${why}`, undefined, 'output'));
      } else if (code === 0) resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr });
      else reject(new ExecError(command, code, signal ? `${stderr}\nkilled by ${signal}` : stderr));
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}
