/**
 * Builds the web UI into web/dist when it is missing or out of date (`npm run build:web`; `npm start` runs it
 * first, so a fresh clone serves the UI with no extra step). Up to date means: every file the last build recorded
 * (web/build-inputs.ts: the bundled sources, the build configuration, the lockfile) still has the same sha256.
 * The check reads a few dozen files (milliseconds); a build takes seconds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileHash, INPUTS_FILE } from '../web/build-inputs.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const webDir = join(repoRoot, 'web');
export const webDist = join(webDir, 'dist');

/** Why web/dist must be rebuilt, or undefined when it is current. */
export function staleReason(): string | undefined {
  let recorded: { files: Record<string, string> };
  try {
    recorded = JSON.parse(readFileSync(join(webDist, INPUTS_FILE), 'utf8')) as typeof recorded;
  } catch {
    return 'web/dist has not been built';
  }
  for (const [file, hash] of Object.entries(recorded.files)) {
    if (fileHash(join(repoRoot, file)) !== hash) return `${file} changed since the last build`;
  }
  return undefined;
}

/** Builds web/dist (vite, production mode). */
export async function buildWeb(): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: join(webDir, 'vite.config.ts'), logLevel: 'warn', mode: 'production' });
}

/** Builds only when stale; resolves with what was done. */
export async function ensureWebBuild(): Promise<'built' | 'current'> {
  if (staleReason() === undefined) return 'current';
  await buildWeb();
  return 'built';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const reason = staleReason();
  if (reason === undefined && !process.argv.includes('--force')) {
    console.error(`web UI is up to date (${Math.round(performance.now() - started)} ms check)`);
  } else {
    console.error(`building the web UI: ${reason ?? 'forced'}`);
    await buildWeb();
    console.error(`web UI built into web/dist in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}
