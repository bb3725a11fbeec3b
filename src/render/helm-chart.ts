/**
 * Renders an unpacked chart (a HelmChart source) with `helm template`: the chart's own values, then its values
 * files in order, then the App's `values` (written as a values file beside the chart, never on the command line);
 * `Capabilities` from the destination (its Kubernetes version and API group versions), CRDs included, test hooks
 * left out. Helm runs offline: dependencies are in the chart's `charts/` before this runs (the engine fetches them
 * with the org's credentials under the outbound policy), so helm never reaches a network.
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { resolveInside } from '../git/checkout.ts';
import { execFile } from '../git/exec.ts';
import { reason } from './kustomize.ts';
import type { RenderLimits } from './limits.ts';
import { parseManifests } from './parse.ts';
import { type KubeObject, ManifestError } from './types.ts';

/** What the destination tells a chart through `.Capabilities`. */
export interface ChartCapabilities {
  /** `v1.35.4` style; undefined leaves helm's default. */
  kubeVersion?: string;
  /** `group/version` of every API the destination serves (`v1` for the core group). */
  apiVersions: string[];
}

/** One chart render. */
export interface ChartRenderRequest {
  /** The unpacked chart (its Chart.yaml is here). */
  chartDir: string;
  /** Named in errors: `<chart>@<version>`. */
  what: string;
  releaseName: string;
  namespace: string;
  /** Values files inside the chart, in order. */
  valuesFiles?: string[];
  /** Values over everything else. */
  values?: Record<string, unknown>;
  capabilities?: ChartCapabilities;
  helm: string;
  limits: RenderLimits;
}

/** Renders the chart. Throws ManifestError naming the chart (also past the time or output bound). */
export async function renderChart(req: ChartRenderRequest): Promise<KubeObject[]> {
  const args = ['template', `--namespace=${req.namespace}`, '--include-crds', '--skip-tests'];
  const caps = req.capabilities;
  if (caps?.kubeVersion) args.push(`--kube-version=${caps.kubeVersion}`);
  for (const v of caps?.apiVersions ?? []) args.push(`--api-versions=${v}`);
  for (const file of req.valuesFiles ?? []) {
    let path: string;
    try {
      path = await resolveInside(req.chartDir, file);
    } catch (err) {
      throw new ManifestError(req.what, `values file ${file}: ${(err as Error).message}`, { cause: err });
    }
    args.push(`--values=${path}`);
  }
  if (req.values && Object.keys(req.values).length > 0) {
    // Beside the chart, not inside it: the chart's own templates cannot read it as a file (.Files).
    const path = join(dirname(req.chartDir), 'svc-values.json');
    await writeFile(path, JSON.stringify(req.values), { mode: 0o600 });
    args.push(`--values=${path}`);
  }
  args.push('--', req.releaseName, req.chartDir);
  let stdout: string;
  try {
    ({ stdout } = await execFile(req.helm, args, {
      timeoutMs: req.limits.timeoutMs,
      maxOutputBytes: req.limits.maxBytes,
      cwd: dirname(req.chartDir),
    }));
  } catch (err) {
    throw new ManifestError(req.what, `helm template failed: ${reason(err, dirname(req.chartDir))}`, { cause: err });
  }
  return parseManifests(stdout, `${req.what} (helm template)`);
}
