/**
 * A Vite plugin that records what a build of the web UI was made from: every source file of the repository the
 * bundle includes (web/src, and server files it imports such as src/core/names.ts), the build's own configuration
 * and the npm lockfile (which pins every package bundled), each with its sha256, in `<outDir>/.build-inputs.json`.
 * scripts/build-web.ts compares them to decide whether web/dist is current.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { Plugin } from 'vite';

/** Files every build depends on besides the bundled modules (relative to the repository). */
export const FIXED_INPUTS = ['web/index.html', 'web/vite.config.ts', 'web/build-inputs.ts', 'package-lock.json'];

export const INPUTS_FILE = '.build-inputs.json';

/** sha256 of a file, or '' when it cannot be read. */
export function fileHash(path: string): string {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return '';
  }
}

export function buildInputs(repoRoot: string): Plugin {
  return {
    name: 'svc-build-inputs',
    apply: 'build',
    generateBundle() {
      const files = new Set(FIXED_INPUTS);
      for (const id of this.getModuleIds()) {
        const path = id.split('?')[0] ?? '';
        if (!path.startsWith(repoRoot) || path.includes('/node_modules/')) continue;
        files.add(relative(repoRoot, path));
      }
      const hashes = Object.fromEntries([...files].sort().map((f) => [f, fileHash(resolve(repoRoot, f))]));
      this.emitFile({
        type: 'asset',
        fileName: INPUTS_FILE,
        source: `${JSON.stringify({ files: hashes }, null, 1)}\n`,
      });
    },
  };
}
