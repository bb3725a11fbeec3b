/**
 * Fills Node's compile cache with every module of an svc application directory, for the container image
 * (scripts/build-image.sh, Dockerfile). Run as
 *
 *   NODE_COMPILE_CACHE=<dir> NODE_COMPILE_CACHE_PORTABLE=1 node scripts/warm-compile-cache.ts <app dir>
 *
 * Why: a module whose type-stripped code is not in the cache makes Node load its TypeScript stripper (amaro, a
 * WebAssembly build of swc), which then stays resident, ≈ 25 MiB for the life of the process (bench/README.md,
 * "Where the idle 95 MiB is"); a container starts with an empty temp directory, so without a cache shipped in the
 * image every pod pays that. Every non-test module under `<app>/src` is imported (so lazily loaded ones, such as the
 * CEL health checks, are cached too) except the CLI's entry, which runs a command when imported: that one is cached
 * by running `<app>/bin/svc.js --version` once, which goes through it as every start does. A module that fails to
 * load is reported and left out: it costs the stripper only if a process ever loads it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import module from 'node:module';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const app = process.argv[2];
if (!app) {
  console.error('usage: node scripts/warm-compile-cache.ts <app dir>');
  process.exit(2);
}
if (!process.env['NODE_COMPILE_CACHE'] || process.env['NODE_COMPILE_CACHE_PORTABLE'] !== '1') {
  console.error('set NODE_COMPILE_CACHE and NODE_COMPILE_CACHE_PORTABLE=1 (the image moves the cache)');
  process.exit(2);
}

/** Modules that act when imported: the CLI's entry runs the command line it was given. */
const ACTS_ON_IMPORT = new Set(['src/cli/main.ts']);

/** Every `.ts` file under `dir` but tests, depth first. */
function modulesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modulesUnder(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = modulesUnder(join(app, 'src')).filter((f) => !ACTS_ON_IMPORT.has(relative(app, f)));
let failed = 0;
for (const file of files) {
  try {
    await import(pathToFileURL(file).href);
  } catch (err) {
    failed++;
    console.error(`warm-compile-cache: ${relative(app, file)} not cached: ${(err as Error).message.split('\n')[0]}`);
  }
}
module.flushCompileCache?.();
// The CLI's entry, through the executable itself (its own compile cache settings come from the same environment).
execFileSync(process.execPath, [join(app, 'bin/svc.js'), '--version'], { stdio: ['ignore', 'ignore', 'inherit'] });
console.error(`warm-compile-cache: ${files.length - failed} of ${files.length} modules cached, and the CLI's entry`);
// Imported modules may hold timers or handles open; the cache is flushed, so the process need not wait for them.
process.exit(0);
