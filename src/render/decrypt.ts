/**
 * Which files of a checkout a render decrypts, and decrypting them in place (src/render/sops.ts runs sops):
 * - Raw: every manifest file the Raw renderer reads (`.yaml`, `.yml`, `.json` under the path);
 * - Kustomize: the local files the kustomization graph names, followed from the path's kustomization through
 *   `resources`, `bases`, `components` and `crds` (directories are kustomizations in turn), patch files, generator
 *   inputs (`files`, `envs`, `env` of config map and secret generators), generator/transformer/validator configs and
 *   `replacements` files — as Flux's kustomize-controller does;
 * - Helm: nothing (chart templates are not SOPS files).
 * Only these files: a repository may hold files encrypted for other keys (another environment's), which this App
 * does not use. A file that is not SOPS-encrypted is left alone. Decrypted files are written into the render's own
 * private checkout (mode 0600), which is removed when the render ends.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { resolveInside } from '../git/checkout.ts';
import { KUSTOMIZATION_FILES, type ManifestKind } from './detect.ts';
import { listManifestFiles } from './raw.ts';
import { type Decrypt, formatOf, isSopsEncrypted } from './sops.ts';

/**
 * Decrypts in place every SOPS-encrypted file the render of `dir` (inside `root`) as `kind` reads; resolves with
 * their paths relative to `root`. Rejects with the ManifestError of the first file that cannot be decrypted.
 */
export async function decryptSources(
  root: string,
  dir: string,
  kind: ManifestKind,
  decrypt: Decrypt,
): Promise<string[]> {
  const files =
    kind === 'Raw' ? await listManifestFiles(dir) : kind === 'Kustomize' ? await kustomizationInputs(root, dir) : [];
  const decrypted: string[] = [];
  for (const file of files) {
    const rel = relative(root, file);
    const content = await readFile(file, 'utf8');
    const format = formatOf(file);
    if (!isSopsEncrypted(content, format)) continue;
    await writeFile(file, await decrypt(content, format, rel), { mode: 0o600 });
    decrypted.push(rel);
  }
  return decrypted;
}

type Kustomization = Record<string, unknown>;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const objects = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];
/** A path kustomize fetches rather than reads from the checkout. */
const isRemote = (p: string) =>
  /^[a-z][a-z0-9+.-]*:\/\//i.test(p) || /^(github\.com|gitlab\.com|bitbucket\.org)\//.test(p) || p.includes('?ref=');

/** Every local file path a kustomization names (directories are the paths of further kustomizations). */
function pathsOf(k: Kustomization): string[] {
  const paths = [
    ...strings(k['resources']),
    ...strings(k['bases']),
    ...strings(k['components']),
    ...strings(k['crds']),
    ...strings(k['generators']),
    ...strings(k['transformers']),
    ...strings(k['validators']),
    // Inline patches are YAML text, not paths: they hold a newline.
    ...strings(k['patchesStrategicMerge']).filter((p) => !p.includes('\n')),
  ];
  for (const p of [...objects(k['patches']), ...objects(k['patchesJson6902']), ...objects(k['replacements'])]) {
    if (typeof p['path'] === 'string') paths.push(p['path']);
  }
  for (const g of [...objects(k['configMapGenerator']), ...objects(k['secretGenerator'])]) {
    // `files` entries are `path` or `key=path`.
    for (const f of strings(g['files'])) paths.push(f.includes('=') ? f.slice(f.indexOf('=') + 1) : f);
    paths.push(...strings(g['envs']));
    if (typeof g['env'] === 'string') paths.push(g['env']);
  }
  return paths.filter((p) => p !== '' && !isRemote(p));
}

/** The files of the kustomization graph rooted at `dir` (see the module comment), each once. */
async function kustomizationInputs(root: string, dir: string): Promise<string[]> {
  const files = new Set<string>();
  const visited = new Set<string>();
  const visit = async (kdir: string): Promise<void> => {
    if (visited.has(kdir)) return;
    visited.add(kdir);
    let k: Kustomization | undefined;
    for (const name of KUSTOMIZATION_FILES) {
      const text = await readFile(join(kdir, name), 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      try {
        const parsed: unknown = parse(text);
        if (typeof parsed === 'object' && parsed !== null) k = parsed as Kustomization;
      } catch {
        // kustomize itself will report the broken kustomization
      }
      break;
    }
    if (!k) return;
    for (const p of pathsOf(k)) {
      // A path outside the repository or that does not exist is kustomize's to report, not this walk's.
      const real = await resolveInside(root, relative(root, join(kdir, p))).catch(() => undefined);
      if (!real) continue;
      const info = await stat(real).catch(() => undefined);
      if (info?.isDirectory()) await visit(real);
      else if (info?.isFile()) files.add(real);
    }
  };
  await visit(await resolveInside(root, relative(root, dir)));
  return [...files];
}
