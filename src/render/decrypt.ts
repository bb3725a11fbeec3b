/**
 * Which files of a checkout a render decrypts, and decrypting them in place (src/render/sops.ts runs sops):
 * - Raw: every manifest file the Raw renderer reads (`.yaml`, `.yml`, `.json` under the path);
 * - Kustomize: the local files the kustomization graph names (walked and checked by ./kustomize-policy.ts), followed from the path's kustomization through
 *   `resources`, `bases`, `components` and `crds` (directories are kustomizations in turn), patch files, generator
 *   inputs (`files`, `envs`, `env` of config map and secret generators), generator/transformer/validator configs and
 *   `replacements` files — as Flux's kustomize-controller does;
 * - Helm: nothing (chart templates are not SOPS files).
 * Only these files: a repository may hold files encrypted for other keys (another environment's), which this App
 * does not use. A file that is not SOPS-encrypted is left alone. Decrypted files are written into the render's own
 * private checkout (mode 0600), which is removed when the render ends.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { ManifestKind } from './detect.ts';
import { checkKustomization } from './kustomize-policy.ts';
import { listManifestFiles } from './raw.ts';
import { type Decrypt, formatOf, isSopsEncrypted } from './sops.ts';

/**
 * Decrypts in place every SOPS-encrypted file the render of `dir` (inside `root`) as `kind` reads; resolves with
 * their paths relative to `root`. Rejects with the ManifestError of the first file that cannot be decrypted, or the
 * KustomizationRefused of an entry the kustomization policy refuses.
 */
export async function decryptSources(
  root: string,
  dir: string,
  kind: ManifestKind,
  decrypt: Decrypt,
): Promise<string[]> {
  const files =
    kind === 'Raw'
      ? await listManifestFiles(dir)
      : kind === 'Kustomize'
        ? (await checkKustomization(root, dir)).files
        : [];
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
