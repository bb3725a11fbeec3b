/** Auto detection of the manifest type of a directory: kustomization file → Kustomize, Chart.yaml → Helm, else Raw. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type ManifestKind = 'Raw' | 'Kustomize' | 'Helm';

export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** The manifest type of `dir` when `requested` is Auto (or unset); otherwise `requested`. */
export function detectManifestType(dir: string, requested: string | undefined): ManifestKind {
  if (requested === 'Raw' || requested === 'Kustomize' || requested === 'Helm') return requested;
  if (KUSTOMIZATION_FILES.some((f) => existsSync(join(dir, f)))) return 'Kustomize';
  if (existsSync(join(dir, 'Chart.yaml'))) return 'Helm';
  return 'Raw';
}
