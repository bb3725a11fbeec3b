#!/usr/bin/env node
// Entry point of the `svc` executable. svc is TypeScript run by Node's type stripping (Node >= 22.18); when the
// node on PATH is older, re-run under the Node 24 that `npm install` placed in node_modules (npm package `node`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
const stripsTypes = major > 22 || (major === 22 && minor >= 18);
if (stripsTypes) {
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
