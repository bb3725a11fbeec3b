/**
 * Raw renderer: every `.yaml`, `.yml` and `.json` file under the source directory (recursively, in path order,
 * hidden entries skipped), each checked to stay inside the repository.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { resolveInside } from '../git/checkout.ts';
import { DEFAULT_RENDER_LIMITS, describeBytes, RENDER_LIMIT_SETTINGS } from './limits.ts';
import { parseManifests } from './parse.ts';
import { type KubeObject, ManifestError } from './types.ts';

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

/**
 * Renders the manifests under `dir` (absolute, inside `root`). File names in errors are relative to `root`. The
 * files together may hold at most `maxBytes` (checked from their sizes before any is read, so a huge file costs no
 * memory); more is a ManifestError naming the bound.
 */
export async function renderRaw(
  root: string,
  dir: string,
  maxBytes: number = DEFAULT_RENDER_LIMITS.maxBytes,
): Promise<KubeObject[]> {
  const files = await listManifestFiles(dir);
  // An empty set would make prune delete everything: a directory without manifests is a mistake, not "nothing".
  if (files.length === 0)
    throw new ManifestError(relative(root, dir) || '.', 'no .yaml, .yml or .json manifests found');
  const real: string[] = [];
  let total = 0;
  for (const file of files) {
    const path = await resolveInside(root, relative(root, file));
    total += (await stat(path)).size;
    if (total > maxBytes) {
      const where = relative(root, dir) || '.';
      throw new ManifestError(
        where,
        `manifests exceed ${describeBytes(maxBytes)} (render limit, ${RENDER_LIMIT_SETTINGS.maxBytes}) at ${relative(root, file)}`,
      );
    }
    real.push(path);
  }
  const out: KubeObject[] = [];
  for (const [i, path] of real.entries()) {
    out.push(...parseManifests(await readFile(path, 'utf8'), relative(root, files[i] as string)));
  }
  return out;
}

/** Every manifest file under `dir` the Raw renderer reads, in path order (hidden entries skipped). */
export async function listManifestFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const full = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listManifestFiles(full)));
    else if ((e.isFile() || e.isSymbolicLink()) && MANIFEST_FILE.test(e.name)) out.push(full);
  }
  return out;
}
