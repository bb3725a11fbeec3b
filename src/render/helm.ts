/**
 * Helm renderer: `helm template` on a chart directory of the checkout. The release name defaults to the App
 * name, the namespace to the destination; `valuesFile` must stay inside the repository; `inlineValues` are passed
 * as `--set-string` so every value stays a string, as the spec declares.
 */
import { relative } from 'node:path';
import { resolveInside } from '../git/checkout.ts';
import { execFile } from '../git/exec.ts';
import { reason } from './kustomize.ts';
import { parseManifests } from './parse.ts';
import { type KubeObject, ManifestError } from './types.ts';

export interface HelmOptions {
  valuesFile?: string;
  releaseName?: string;
  namespace?: string;
  inlineValues?: Record<string, string>;
}

/** Renders the chart in `dir` (inside `root`). Throws ManifestError. */
export async function renderHelm(
  bin: string,
  root: string,
  dir: string,
  appName: string,
  namespace: string,
  options: HelmOptions = {},
): Promise<KubeObject[]> {
  const rel = relative(root, dir) || '.';
  const release = options.releaseName || appName;
  const args = ['template', release, dir, '--namespace', options.namespace || namespace];
  if (options.valuesFile) {
    const values = await resolveInside(root, relative(root, `${dir}/${options.valuesFile}`));
    args.push('--values', values);
  }
  for (const [key, value] of Object.entries(options.inlineValues ?? {})) {
    if (!/^[\w.[\]-]+$/.test(key)) throw new ManifestError(rel, `invalid helm inline value key "${key}"`);
    args.push('--set-string', `${key}=${value.replace(/([\\,])/g, '\\$1')}`);
  }
  let stdout: string;
  try {
    ({ stdout } = await execFile(bin, args, { timeoutMs: 120_000 }));
  } catch (err) {
    throw new ManifestError(rel, `helm template failed: ${reason(err, root)}`, { cause: err });
  }
  return parseManifests(stdout, `${rel} (helm template)`);
}
