/**
 * Helm renderer: `helm template` on a chart directory of the checkout. The release name defaults to the App
 * name, the namespace to the destination; `valuesFile` must stay inside the repository; `inlineValues` are passed
 * as `--set-string` so every value stays a string, as the spec declares.
 */
import { relative } from 'node:path';
import { resolveInside } from '../git/checkout.ts';
import { execFile } from '../git/exec.ts';
import { reason } from './kustomize.ts';
import { DEFAULT_RENDER_LIMITS, type RenderLimits } from './limits.ts';
import { parseManifests } from './parse.ts';
import { type KubeObject, ManifestError } from './types.ts';

export interface HelmOptions {
  valuesFile?: string;
  releaseName?: string;
  namespace?: string;
  inlineValues?: Record<string, string>;
}

/**
 * Renders the chart in `dir` (inside `root`). Every value from the App is one argument in `--flag=value` form and
 * the positionals follow `--`, so nothing (a release name, a namespace, a values key) can be read as a Helm option.
 * Throws ManifestError (also when helm outlives `limits.timeoutMs` or writes more than `limits.maxBytes`).
 */
export async function renderHelm(
  bin: string,
  root: string,
  dir: string,
  appName: string,
  namespace: string,
  options: HelmOptions = {},
  limits: RenderLimits = DEFAULT_RENDER_LIMITS,
): Promise<KubeObject[]> {
  const rel = relative(root, dir) || '.';
  const release = options.releaseName || appName;
  const args = ['template', `--namespace=${options.namespace || namespace}`];
  if (options.valuesFile) {
    const values = await resolveInside(root, relative(root, `${dir}/${options.valuesFile}`));
    args.push(`--values=${values}`);
  }
  for (const [key, value] of Object.entries(options.inlineValues ?? {})) {
    if (!/^[\w[][\w.[\]-]*$/.test(key)) throw new ManifestError(rel, `invalid helm inline value key "${key}"`);
    args.push(`--set-string=${key}=${value.replace(/([\\,])/g, '\\$1')}`);
  }
  args.push('--', release, dir);
  let stdout: string;
  try {
    ({ stdout } = await execFile(bin, args, { timeoutMs: limits.timeoutMs, maxOutputBytes: limits.maxBytes }));
  } catch (err) {
    throw new ManifestError(rel, `helm template failed: ${reason(err, root)}`, { cause: err });
  }
  return parseManifests(stdout, `${rel} (helm template)`);
}
