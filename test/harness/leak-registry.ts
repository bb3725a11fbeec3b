/**
 * The integration run's leak check (issue 17, "no leaks, everywhere"): tests and harness helpers register every
 * secret value they create or hand to svc ({@link registerSecret}: passwords, API keys, kubeconfig keys and tokens,
 * registry/store credentials, Secret data, SOPS plaintext), and hand over what svc showed them
 * ({@link captureForLeakScan}: API response bodies, server and operator logs, Events, App statuses). Both go to a
 * spool directory on disk shared by the vitest workers (named by {@link LEAK_DIR_ENV}, created by the integration
 * project's global setup); at the end of the run the global teardown scans every capture for every secret once
 * ({@link scanLeakSpool}) and fails the run naming each secret's label and where it was seen — never its value.
 *
 * Bounded memory: a capture is appended to the spool file at once (nothing is kept in memory but a digest per capture,
 * so an identical body seen again is not written twice), and the scan reads one capture at a time.
 * Outside the integration project (no spool directory) registering and capturing do nothing.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Leak, MIN_SECRET_LENGTH, type NamedSecret, SecretMatcher } from './leak-scan.ts';

/** Environment variable naming the spool directory (set by the global setup, inherited by the workers). */
export const LEAK_DIR_ENV = 'SVC_TEST_LEAK_DIR';

const spooled = new Set<string>();
const registered = new Set<string>();
let context = '';

function spoolDir(): string | undefined {
  return process.env[LEAK_DIR_ENV] || undefined;
}

/** Names what is running now (the test file), prefixed to every later capture's place and secret's label. */
export function setLeakContext(name: string): void {
  context = name;
}

/**
 * Registers `value` as a secret no capture of the run may contain, under `label` (reported on a hit, with the test
 * file that registered it). Throws when `value` is shorter than 8 characters (it would match by chance): a test
 * secret must be long enough to be recognised.
 */
export function registerSecret(label: string, value: string): void {
  if (value.length < MIN_SECRET_LENGTH) throw new Error(`secret ${label} is too short to scan for reliably`);
  const dir = spoolDir();
  if (!dir || registered.has(value)) return;
  registered.add(value);
  const named: NamedSecret = { label: context ? `${label} (registered by ${context})` : label, value };
  appendFileSync(join(dir, `secrets-${process.pid}.jsonl`), `${JSON.stringify(named)}\n`, { mode: 0o600 });
}

/**
 * Registers each value of `data` (Secret data, a store entry) as `<label> <key>`. Values shorter than 8 characters
 * are skipped, not refused: fixtures like `user: guest` are data, not credentials, and would match by chance.
 */
export function registerSecretData(label: string, data: Record<string, string>): void {
  for (const [key, value] of Object.entries(data)) {
    if (value.length >= MIN_SECRET_LENGTH) registerSecret(`${label} ${key}`, value);
  }
}

/**
 * Hands `text` (a response body, a log, an object) to the run's leak scan, as seen at `where`. Empty text and text
 * this process already handed over are not written again.
 */
export function captureForLeakScan(where: string, text: string | Buffer): void {
  const dir = spoolDir();
  if (!dir || text.length === 0) return;
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const digest = createHash('sha256').update(bytes).digest('base64');
  if (spooled.has(digest)) return;
  spooled.add(digest);
  const place = (context ? `${context}: ${where}` : where).replaceAll('\n', ' ');
  const header = Buffer.from(`${place}\n${bytes.length}\n`);
  appendFileSync(join(dir, `captures-${process.pid}.bin`), Buffer.concat([header, bytes]), { mode: 0o600 });
}

const LOG_FLUSH_BYTES = 256 * 1024;

/**
 * A server's log lines on their way to the leak check: whole lines are buffered and handed over by the 256 KiB (and
 * at {@link LeakScanLog.flush}), so a secret is never cut between two captures and memory stays bounded.
 */
export class LeakScanLog {
  readonly #where: string;
  #lines: string[] = [];
  #size = 0;

  constructor(where: string) {
    this.#where = where;
  }

  /** Adds one log line (or a chunk of whole lines). */
  write(line: string): void {
    this.#lines.push(line);
    this.#size += line.length;
    if (this.#size >= LOG_FLUSH_BYTES) this.flush();
  }

  /** Hands what is buffered to the leak check. */
  flush(): void {
    captureForLeakScan(this.#where, this.#lines.join(''));
    this.#lines = [];
    this.#size = 0;
  }
}

/** Creates the spool directory and points {@link LEAK_DIR_ENV} at it (global setup, before any worker starts). */
export function startLeakSpool(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-leak-spool-'));
  process.env[LEAK_DIR_ENV] = dir;
  return dir;
}

/** Removes the spool directory. */
export function removeLeakSpool(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

function readLine(fd: number, position: number): { line: string; next: number } | undefined {
  const chunk = Buffer.alloc(4096);
  let line = Buffer.alloc(0);
  let at = position;
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, at);
    if (n === 0) return undefined;
    const end = chunk.subarray(0, n).indexOf(10);
    if (end >= 0) {
      line = Buffer.concat([line, chunk.subarray(0, end)]);
      return { line: line.toString(), next: at + end + 1 };
    }
    line = Buffer.concat([line, chunk.subarray(0, n)]);
    at += n;
  }
}

/** Every capture of one spool file, one at a time. */
function* capturesOf(path: string): Generator<{ where: string; bytes: Buffer }> {
  const fd = openSync(path, 'r');
  try {
    let position = 0;
    for (;;) {
      const place = readLine(fd, position);
      if (!place) return;
      const size = readLine(fd, place.next);
      if (!size) throw new Error(`${path}: truncated capture header at ${position}`);
      const bytes = Buffer.alloc(Number(size.line));
      if (readSync(fd, bytes, 0, bytes.length, size.next) !== bytes.length) {
        throw new Error(`${path}: truncated capture at ${position}`);
      }
      yield { where: place.line, bytes };
      position = size.next + bytes.length;
    }
  } finally {
    closeSync(fd);
  }
}

const CHUNK = 1 << 20;

/** A long file (a watch's output) in 1 MiB chunks, each overlapping the previous by `overlap` bytes. */
function* chunksOf(path: string, overlap: number): Generator<Buffer> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK + overlap);
    let position = 0;
    let kept = 0;
    for (;;) {
      const n = readSync(fd, buffer, kept, CHUNK, position);
      if (n === 0) return;
      position += n;
      const total = kept + n;
      // The consumer scans the chunk before asking for the next, so the buffer can be reused.
      yield buffer.subarray(0, total);
      kept = Math.min(overlap, total);
      buffer.copy(buffer, 0, total - kept, total);
    }
  } finally {
    closeSync(fd);
  }
}

/** What one scan of a spool directory read and found. */
export interface SpoolScan {
  secrets: number;
  captures: number;
  bytes: number;
  leaks: Leak[];
}

/**
 * Scans every capture in the spool directory `dir` for every registered secret (in every worker's files): the leaks
 * found (label and place, never the value) and the counts read.
 */
export function scanLeakSpool(dir: string): SpoolScan {
  const files = readdirSync(dir);
  const secrets: NamedSecret[] = files
    .filter((f) => f.startsWith('secrets-'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as NamedSecret),
    );
  const matcher = new SecretMatcher(secrets);
  const scan: SpoolScan = { secrets: secrets.length, captures: 0, bytes: 0, leaks: [] };
  for (const file of files.filter((f) => f.startsWith('stream-'))) {
    const where = file.replace(/^stream-/, '').replace(/\.log$/, '');
    for (const chunk of chunksOf(join(dir, file), matcher.longest)) {
      scan.captures++;
      scan.bytes += chunk.length;
      for (const secret of matcher.labelsIn(chunk)) {
        if (!scan.leaks.some((l) => l.secret === secret && l.where === where)) scan.leaks.push({ secret, where });
      }
    }
  }
  for (const file of files.filter((f) => f.startsWith('captures-'))) {
    for (const { where, bytes } of capturesOf(join(dir, file))) {
      scan.captures++;
      scan.bytes += bytes.length;
      for (const secret of matcher.labelsIn(bytes)) scan.leaks.push({ secret, where });
    }
  }
  // A place may quote a secret itself (a request path carrying one): the report names it by label there too.
  for (const leak of scan.leaks) {
    for (const { label, value } of secrets) leak.where = leak.where.replaceAll(value, `[${label}]`);
  }
  return scan;
}
