#!/usr/bin/env node
// Entry point of the `svc` executable. svc is TypeScript run by Node's type stripping (Node >= 22.18); when the
// node on PATH is older, re-run under the Node 24 that `npm install` placed in node_modules (npm package `node`).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
const stripsTypes = major > 22 || (major === 22 && minor >= 18);
if (stripsTypes) {
  // Node's compile cache keeps the type-stripped, compiled modules between runs (in the OS temp directory, or
  // NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a client command starts in about a third of the
  // time, since stripping types is most of its start-up.
  // The container image ships that cache for its own modules (SVC_COMPILE_CACHE_SEED, filled at build time by
  // scripts/warm-compile-cache.ts): a module missing from it makes Node load its TypeScript stripper, ≈ 25 MiB that
  // stay resident. Node uses only a cache it may write, and the image's root filesystem is read-only, so the first
  // start copies it into the temp directory (an empty volume), where its paths, relative and built at the same depth
  // (scripts/build-image.sh), find the modules again. A cache of the caller's own (NODE_COMPILE_CACHE) is left as is.
  const seed = process.env.SVC_COMPILE_CACHE_SEED;
  if (seed && !process.env.NODE_COMPILE_CACHE) {
    const target = join(tmpdir(), 'node-compile-cache');
    try {
      if (!existsSync(target)) cpSync(seed, target, { recursive: true });
    } catch {
      // Not mission critical: without it, modules are stripped as they load.
    }
  }
  module.enableCompileCache?.();
  // The long-lived roles (`svc operator`, `svc server`, `svc start`) make garbage that is almost all short-lived
  // (JSON of watch events, API requests and answers). Node 24 lets V8's young generation grow to 64 MiB, which then
  // stays resident; 8 MiB semi-spaces (16 MiB young generation) keep their peak RSS down (bench/README.md, issues 18
  // and 29: about 48 MiB less for a server holding 10,000 Apps). V8 reads the flag only at start, so the process
  // replaces itself once with the flag set (same pid, no second process). A --max-semi-space-size of the caller's
  // own (node flag or NODE_OPTIONS) is kept as given.
  const youngGenerationFlag = '--max-semi-space-size';
  const callerSet = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes(youngGenerationFlag));
  const longLived = ['operator', 'server', 'start'].includes(process.argv[2] ?? '');
  // Only as the process's own entry: `npm start` (scripts/start.ts) imports this file after starting the local
  // control plane in the same process, and replacing that process would end the plane (its components exit when
  // the pipes to their parent close). import.meta.main is false there; Node before 24.2 leaves it undefined.
  const entry = import.meta.main !== false;
  if (entry && longLived && !callerSet && typeof process.execve === 'function') {
    process.execve(process.execPath, [
      process.execPath,
      ...process.execArgv,
      `${youngGenerationFlag}=8`,
      ...process.argv.slice(1),
    ]);
  }
  await import('../src/cli/main.ts');
} else {
  const bundled = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(bundled)) {
    console.error(
      `svc needs Node.js >= 22.18 (this is ${process.version}); run \`npm install\` in the svc checkout first`,
    );
    process.exit(1);
  }
  const result = spawnSync(bundled, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
