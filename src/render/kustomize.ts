/**
 * Kustomize renderer: applies the App's `kustomize` options with `kustomize edit` inside the private checkout
 * (each checkout is a throwaway copy, so editing it in place is safe), then runs `kustomize build`.
 */
import { relative } from 'node:path';
import { resolveInside } from '../git/checkout.ts';
import { ExecError, execFile, lastLine } from '../git/exec.ts';
import { parseManifests } from './parse.ts';
import { type KubeObject, ManifestError } from './types.ts';

export interface KustomizeOptions {
  images?: string[];
  namePrefix?: string;
  components?: string[];
}

/** Renders the kustomization in `dir` (inside `root`) with the given options. Throws ManifestError. */
export async function renderKustomize(
  bin: string,
  root: string,
  dir: string,
  options: KustomizeOptions = {},
): Promise<KubeObject[]> {
  const rel = relative(root, dir) || '.';
  const edit = async (args: string[]) => {
    try {
      await execFile(bin, ['edit', ...args], { cwd: dir, timeoutMs: 60_000 });
    } catch (err) {
      throw new ManifestError(rel, `kustomize edit ${args[0]} ${args[1]} failed: ${reason(err)}`, { cause: err });
    }
  };
  for (const image of options.images ?? []) {
    if (!/^[^\s=]+(=[^\s=]+)?$/.test(image)) throw new ManifestError(rel, `invalid kustomize image "${image}"`);
    await edit(['set', 'image', image]);
  }
  if (options.namePrefix) {
    if (!/^[a-z0-9][-a-z0-9.]*$/.test(options.namePrefix)) {
      throw new ManifestError(rel, `invalid namePrefix "${options.namePrefix}"`);
    }
    await edit(['set', 'nameprefix', options.namePrefix]);
  }
  for (const component of options.components ?? []) {
    await resolveInside(root, relative(root, `${dir}/${component}`));
    await edit(['add', 'component', component]);
  }
  let stdout: string;
  try {
    ({ stdout } = await execFile(bin, ['build', dir], { timeoutMs: 120_000 }));
  } catch (err) {
    throw new ManifestError(rel, `kustomize build failed: ${reason(err)}`, { cause: err });
  }
  return parseManifests(stdout, `${rel} (kustomize build)`);
}

/** The tool's own explanation, without paths of our temporary directories. */
export function reason(err: unknown): string {
  const text = err instanceof ExecError ? err.stderr : err instanceof Error ? err.message : String(err);
  return lastLine(text)
    .replace(/\/tmp\/svc-checkout-[^/\s]+\/?/g, '')
    .replace(/^Error:\s*/, '');
}
