/**
 * Kustomize renderer: applies the App's `kustomize` options with `kustomize edit` inside the private checkout
 * (each checkout is a throwaway copy, so editing it in place is safe), checks the kustomization graph against the
 * policy of ./kustomize-policy.ts (no remote references, nothing outside the checkout), then runs `kustomize build`.
 */
import { realpathSync } from 'node:fs';
import { relative } from 'node:path';
import { resolveInside } from '../git/checkout.ts';
import { ExecError, execFile, lastLine } from '../git/exec.ts';
import { checkKustomization } from './kustomize-policy.ts';
import { DEFAULT_RENDER_LIMITS, RENDER_LIMIT_SETTINGS, type RenderLimits } from './limits.ts';
import { parseManifests } from './parse.ts';
import { type KubeObject, ManifestError } from './types.ts';

export interface KustomizeOptions {
  images?: string[];
  namePrefix?: string;
  components?: string[];
}

/**
 * Renders the kustomization in `dir` (inside `root`) with the given options. Values from the App follow `--`, so
 * none is read as a kustomize option. Throws ManifestError (also when kustomize outlives `limits.timeoutMs` or
 * writes more than `limits.maxBytes`), or KustomizationRefused (an InputError: the App stalls) before kustomize
 * runs when the graph breaks the policy.
 */
export async function renderKustomize(
  bin: string,
  root: string,
  dir: string,
  options: KustomizeOptions = {},
  limits: RenderLimits = DEFAULT_RENDER_LIMITS,
): Promise<KubeObject[]> {
  const rel = relative(root, dir) || '.';
  const edit = async (verb: string, what: string, value: string) => {
    try {
      await execFile(bin, ['edit', verb, what, '--', value], { cwd: dir, timeoutMs: limits.timeoutMs });
    } catch (err) {
      throw new ManifestError(rel, `kustomize edit ${verb} ${what} failed: ${reason(err, root)}`, { cause: err });
    }
  };
  for (const image of options.images ?? []) {
    if (!/^[^\s=-][^\s=]*(=[^\s=-][^\s=]*)?$/.test(image)) {
      throw new ManifestError(rel, `invalid kustomize image "${image}"`);
    }
    await edit('set', 'image', image);
  }
  if (options.namePrefix) {
    if (!/^[a-z0-9][-a-z0-9.]*$/.test(options.namePrefix)) {
      throw new ManifestError(rel, `invalid namePrefix "${options.namePrefix}"`);
    }
    await edit('set', 'nameprefix', options.namePrefix);
  }
  for (const component of options.components ?? []) {
    await resolveInside(root, relative(root, `${dir}/${component}`));
    await edit('add', 'component', component);
  }
  await checkKustomization(root, dir);
  let stdout: string;
  try {
    ({ stdout } = await execFile(bin, ['build', '--', dir], {
      timeoutMs: limits.timeoutMs,
      maxOutputBytes: limits.maxBytes,
    }));
  } catch (err) {
    throw new ManifestError(rel, `kustomize build failed: ${reason(err, root)}`, { cause: err });
  }
  return parseManifests(stdout, `${rel} (kustomize build)`);
}

/**
 * The tool's own explanation (last line of its stderr) with the checkout's absolute path (as given and after
 * symlinks) replaced by paths relative to the repository: kustomize and helm name the files they read by absolute
 * path, and App status must not show where the operator keeps its checkouts.
 */
export function reason(err: unknown, root: string): string {
  if (err instanceof ExecError && err.limit) {
    // The tool was stopped by a render bound: say which, and the setting that raises it.
    const setting = RENDER_LIMIT_SETTINGS[err.limit === 'timeout' ? 'timeoutMs' : 'maxBytes'];
    return `${lastLine(err.stderr)} (render limit, ${setting})`;
  }
  const text = err instanceof ExecError ? err.stderr : err instanceof Error ? err.message : String(err);
  let line = lastLine(text);
  for (const dir of new Set([root, realpathOr(root)])) {
    if (dir.length > 1) line = line.replaceAll(`${dir}/`, '').replaceAll(dir, '.');
  }
  // Any other checkout (another render's, or a path under a symlinked temp dir) by its name pattern.
  return line.replace(/\/[^\s'"]*\/svc-checkout-[^/\s'"]+\/?/g, '').replace(/^Error:\s*/, '');
}

const realpathOr = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};
