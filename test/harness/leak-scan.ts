/**
 * The leak scanner: looks for known plaintext secrets (passwords, API keys, kubeconfig keys, tokens a test used) in
 * what svc wrote — its log output and every file of its data directory (the SQLite database and its WAL included,
 * read as bytes) — and reports each hit with where it was found. A test fails on any hit (contract: no secret logged
 * or stored in the clear; credentials are sealed at rest, API keys kept as hashes).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One place a secret was found. */
export interface Leak {
  /** The secret's label as the test named it (never its value). */
  secret: string;
  /** Where: `log`, or the file path. */
  where: string;
}

/** What to scan: text captured from a process, and directories whose files are read as bytes. */
export interface LeakSources {
  texts?: Record<string, string>;
  dirs?: string[];
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
  for (const [label, value] of Object.entries(secrets)) {
    if (value.length < 8) throw new Error(`secret ${label} is too short to scan for reliably`);
  }
  const leaks: Leak[] = [];
  const scan = (where: string, bytes: Buffer) => {
    for (const [label, value] of Object.entries(secrets)) {
      if (bytes.includes(value)) leaks.push({ secret: label, where });
    }
  };
  for (const [where, text] of Object.entries(sources.texts ?? {})) scan(where, Buffer.from(text));
  for (const dir of sources.dirs ?? []) {
    for (const file of filesUnder(dir)) scan(file, readFileSync(file));
  }
  return leaks;
}
