/**
 * Renders a Git source from a checkout: picks the renderer (auto detection or `manifestType`), then applies
 * `${VAR}` substitution, the default namespace, and a duplicate check. This is the Git entry of the renderer
 * table; image sources are rendered by ./image.ts.
 */
import { isDirectory, resolveInside } from '../git/checkout.ts';
import { GitPathError } from '../git/errors.ts';
import { decryptSources } from './decrypt.ts';
import { detectManifestType, type ManifestKind } from './detect.ts';
import { type HelmOptions, renderHelm } from './helm.ts';
import { type KustomizeOptions, renderKustomize } from './kustomize.ts';
import { DEFAULT_RENDER_LIMITS, type RenderLimits } from './limits.ts';
import { defaultNamespace, type ScopeLookup } from './namespaces.ts';
import { renderRaw } from './raw.ts';
import { type Decrypt, isEncryptedObject } from './sops.ts';
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
    decryption?: { storeRef: string };
  };
  appName: string;
  /** Destination namespace: the default for namespaced objects and Helm's `--namespace`. */
  namespace: string;
  tools?: ToolPaths;
  /** Time and size bounds of the render (default DEFAULT_RENDER_LIMITS). */
  limits?: RenderLimits;
  scope?: ScopeLookup;
  /**
   * Decrypts SOPS-encrypted inputs before rendering (src/render/decrypt.ts says which); set when the App has
   * `decryption`. The plaintext then exists only in the checkout (removed by the caller) and the returned objects.
   */
  decrypt?: Decrypt;
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
  if (req.decrypt) await decryptSources(req.root, dir, manifestType, req.decrypt);
  const limits = req.limits ?? DEFAULT_RENDER_LIMITS;
  let objects: KubeObject[];
  if (manifestType === 'Kustomize') {
    objects = await renderKustomize(findTool('kustomize', req.tools), req.root, dir, req.git.kustomize, limits);
  } else if (manifestType === 'Helm') {
    const helm = findTool('helm', req.tools);
    objects = await renderHelm(helm, req.root, dir, req.appName, req.namespace, req.git.helm, limits);
  } else {
    objects = await renderRaw(req.root, dir, limits.maxBytes);
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
  rejectEncrypted(finished, req.git);
  return finished;
}

/**
 * An object still carrying SOPS metadata was not decrypted: applying it would put ciphertext into the cluster
 * (contract §4.4 rule 5 describes exactly that hole; svc refuses the set instead).
 */
function rejectEncrypted(objects: KubeObject[], git: GitRenderRequest['git']): void {
  const encrypted = objects.find((o) => isEncryptedObject(o));
  if (!encrypted) return;
  const what = `${encrypted.kind} ${encrypted.metadata.name}`;
  throw new ManifestError(
    git.path || '.',
    git.decryption
      ? `${what} is still SOPS-encrypted after decryption (svc decrypts the Raw files under the path and the files a kustomization names, not Helm inputs)`
      : `${what} is SOPS-encrypted: set spec.source.git.decryption.storeRef to a secret store holding its age key`,
  );
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
