#!/usr/bin/env node
// Entry point of the `svc` executable. svc is TypeScript run by Node's type stripping (Node >= 22.18); when the
// node on PATH is older, re-run under the Node 24 that `npm install` placed in node_modules (npm package `node`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
const stripsTypes = major > 22 || (major === 22 && minor >= 18);
if (stripsTypes) {
  // Node's compile cache keeps the type-stripped, compiled modules between runs (in the OS temp directory, or
  // NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a client command starts in about a third of the
  // time, since stripping types is most of its start-up.
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
