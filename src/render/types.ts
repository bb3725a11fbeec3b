/**
 * The shapes every renderer shares. A renderer turns a source on disk (or, for image sources, a spec) into plain
 * Kubernetes objects; the operator applies them. Renderers never talk to a cluster.
 */
import { InputError } from '../core/errors.ts';
import type { AnyObject } from '../core/kube-object.ts';

/**
 * A rendered Kubernetes object, as plain JSON: the one object shape of src/core/kube-object.ts, so what a renderer
 * returns is what the operator applies. Renderers never talk to a cluster.
 */
export type KubeObject = AnyObject;

/** A manifest that cannot be rendered: names the file (relative to the repository) and the reason. */
export class ManifestError extends InputError {
  readonly file: string;
  constructor(file: string, reason: string, options: { cause?: unknown } = {}) {
    super(`${file}: ${reason}`, { ...options, retry: 'wait' });
    this.file = file;
  }
}
