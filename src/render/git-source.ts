/**
 * Renders a Git source from a checkout: picks the renderer (auto detection or `manifestType`), then applies
 * `${VAR}` substitution, the default namespace, and a duplicate check. This is the Git entry of the renderer
 * table; image sources are rendered by ./image.ts.
 */
import { isDirectory, resolveInside } from '../git/checkout.ts';
import { GitPathError } from '../git/errors.ts';
import { detectManifestType, type ManifestKind } from './detect.ts';
import { type HelmOptions, renderHelm } from './helm.ts';
import { type KustomizeOptions, renderKustomize } from './kustomize.ts';
import { defaultNamespace, type ScopeLookup } from './namespaces.ts';
import { renderRaw } from './raw.ts';
import { substitute } from './substitute.ts';
import { findTool, type ToolPaths } from './tools.ts';
import { type KubeObject, ManifestError } from './types.ts';

export interface GitRenderRequest {
  /** Root of the exported revision. */
  root: string;
  /** `spec.source.git` of the App (only the fields rendering reads). */
  git: {
    path?: string;
    manifestType?: string;
    kustomize?: KustomizeOptions;
    helm?: HelmOptions;
    substitution?: Record<string, string>;
  };
  appName: string;
  /** Destination namespace: the default for namespaced objects and Helm's `--namespace`. */
  namespace: string;
  tools?: ToolPaths;
  scope?: ScopeLookup;
}

export interface RenderResult {
  objects: KubeObject[];
  manifestType: ManifestKind;
}

/** Renders the App's manifests from a checkout. Throws ManifestError or GitPathError naming the problem. */
export async function renderGitSource(req: GitRenderRequest): Promise<RenderResult> {
  const raw = await renderManifests(req);
  return { objects: finishObjects(raw.objects, req), manifestType: raw.manifestType };
}

/**
 * The renderer's own output from a checkout (Raw files, `kustomize build` or `helm template`), before
 * substitution and namespace defaulting: what the render cache keeps (see `renderKey` for what it depends on).
 * Throws ManifestError or GitPathError.
 */
export async function renderManifests(req: GitRenderRequest): Promise<RenderResult> {
  const path = req.git.path || '.';
  const dir = await resolveInside(req.root, path);
  if (!(await isDirectory(dir))) throw new GitPathError(`path "${path}" is not a directory`);
  const manifestType = detectManifestType(dir, req.git.manifestType);
  let objects: KubeObject[];
  if (manifestType === 'Kustomize') {
    objects = await renderKustomize(findTool('kustomize', req.tools), req.root, dir, req.git.kustomize);
  } else if (manifestType === 'Helm') {
    objects = await renderHelm(findTool('helm', req.tools), req.root, dir, req.appName, req.namespace, req.git.helm);
  } else {
    objects = await renderRaw(req.root, dir);
  }
  return { objects, manifestType };
}

/**
 * The per-App steps after rendering: `${VAR}` substitution, the default namespace, and the duplicate check.
 * Pure; returns new objects where it changes any. Throws ManifestError for a duplicate.
 */
export function finishObjects(
  objects: KubeObject[],
  req: Pick<GitRenderRequest, 'git' | 'namespace' | 'scope'>,
): KubeObject[] {
  const finished = defaultNamespace(substitute(objects, req.git.substitution), req.namespace, req.scope);
  rejectDuplicates(finished, req.git.path || '.');
  return finished;
}

/** Two objects with one identity would fight over the same live object: refuse the set. */
function rejectDuplicates(objects: KubeObject[], path: string): void {
  const seen = new Set<string>();
  for (const o of objects) {
    const id = `${o.apiVersion.split('/')[0]}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    if (seen.has(id)) {
      throw new ManifestError(
        path,
        `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name} is defined twice`,
      );
    }
    seen.add(id);
  }
}
