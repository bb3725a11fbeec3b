/**
 * The leak scanner: looks for known plaintext secrets (passwords, API keys, kubeconfig keys, tokens a test used) in
 * what svc wrote — its log output, its responses, every file of its data directory (the SQLite database and its WAL
 * included, read as bytes) — and reports each hit with where it was found. A test fails on any hit (contract: no
 * secret logged or stored in the clear; credentials are sealed at rest, API keys kept as hashes).
 *
 * A secret is looked for as written, JSON-escaped (a PEM key inside a JSON body has `\n` for its newlines) and in
 * base64 (Kubernetes Secret `data`, kubeconfig `client-key-data`). The search is one pass over the bytes for all
 * secrets at once (a rolling hash of the first {@link MIN_SECRET_LENGTH} bytes of each form, then an exact compare),
 * so scanning a whole integration run's captures costs one read of them, not one per secret.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Shorter values would match by chance; registering one is refused. */
export const MIN_SECRET_LENGTH = 8;

/** One place a secret was found. */
export interface Leak {
  /** The secret's label as the test named it (never its value). */
  secret: string;
  /** Where: `log`, the file path, or what the capture was called. */
  where: string;
}

/** What to scan: text captured from a process, and directories whose files are read as bytes. */
export interface LeakSources {
  texts?: Record<string, string>;
  dirs?: string[];
}

/** A secret to look for: its label (reported) and its plaintext (never reported). */
export interface NamedSecret {
  label: string;
  value: string;
}

/** The forms in which `value` is looked for: as is, JSON-escaped when that differs, and base64. */
export function encodingsOf(value: string): Buffer[] {
  const forms = new Set([value, JSON.stringify(value).slice(1, -1), Buffer.from(value).toString('base64')]);
  return [...forms].map((form) => Buffer.from(form));
}

const WINDOW = MIN_SECRET_LENGTH;
const BASE = 257;
const MOD = 1_000_000_007;
/** BASE^(WINDOW-1) mod MOD: the weight of the byte leaving the window. */
const LEAD = (() => {
  let lead = 1;
  for (let i = 1; i < WINDOW; i++) lead = (lead * BASE) % MOD;
  return lead;
})();

function windowHash(bytes: Buffer, start: number): number {
  let h = 0;
  for (let i = start; i < start + WINDOW; i++) h = (h * BASE + (bytes[i] as number)) % MOD;
  return h;
}

/**
 * A matcher for many secrets at once. `labelsIn(bytes)` answers the labels of the secrets found anywhere in `bytes`
 * (each once), in one pass. Throws when a value is shorter than {@link MIN_SECRET_LENGTH}.
 */
export class SecretMatcher {
  readonly #byHash = new Map<number, { label: string; needle: Buffer }[]>();
  /** Length in bytes of the longest form looked for (the overlap a chunked scan needs). */
  readonly longest: number = 0;

  constructor(secrets: Iterable<NamedSecret>) {
    for (const { label, value } of secrets) {
      if (value.length < MIN_SECRET_LENGTH) throw new Error(`secret ${label} is too short to scan for reliably`);
      for (const needle of encodingsOf(value)) {
        const h = windowHash(needle, 0);
        const bucket = this.#byHash.get(h) ?? [];
        bucket.push({ label, needle });
        this.longest = Math.max(this.longest, needle.length);
        this.#byHash.set(h, bucket);
      }
    }
  }

  /** Labels of the secrets occurring in `bytes`. */
  labelsIn(bytes: Buffer): Set<string> {
    const found = new Set<string>();
    if (this.#byHash.size === 0 || bytes.length < WINDOW) return found;
    let h = windowHash(bytes, 0);
    for (let start = 0; ; start++) {
      const bucket = this.#byHash.get(h);
      if (bucket) {
        for (const { label, needle } of bucket) {
          const end = start + needle.length;
          if (!found.has(label) && end <= bytes.length && bytes.compare(needle, 0, needle.length, start, end) === 0) {
            found.add(label);
          }
        }
      }
      const next = start + WINDOW;
      if (next >= bytes.length) return found;
      h = (h - (((bytes[start] as number) * LEAD) % MOD) + MOD) % MOD;
      h = (h * BASE + (bytes[next] as number)) % MOD;
    }
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((rel) => join(dir, rel))
    .filter((path) => {
      try {
        return statSync(path).isFile();
      } catch {
        return false; // removed while listing (a WAL checkpoint)
      }
    });
}

/**
 * Every occurrence of a secret of `secrets` (label → plaintext; values shorter than 8 characters are refused, they
 * would match by chance) in `sources`, as label and place. Empty when nothing leaked.
 */
export function findLeaks(secrets: Record<string, string>, sources: LeakSources): Leak[] {
  const matcher = new SecretMatcher(Object.entries(secrets).map(([label, value]) => ({ label, value })));
  const leaks: Leak[] = [];
  const scan = (where: string, bytes: Buffer) => {
    for (const secret of matcher.labelsIn(bytes)) leaks.push({ secret, where });
  };
  for (const [where, text] of Object.entries(sources.texts ?? {})) scan(where, Buffer.from(text));
  for (const dir of sources.dirs ?? []) {
    for (const file of filesUnder(dir)) scan(file, readFileSync(file));
  }
  return leaks;
}
