/**
 * The shapes every renderer shares. A renderer turns a source on disk (or, for image sources, a spec) into plain
 * Kubernetes objects; the operator applies them. Renderers never talk to a cluster.
 */
import { InputError } from '../core/errors.ts';

/** A rendered Kubernetes object, as plain JSON. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** A manifest that cannot be rendered: names the file (relative to the repository) and the reason. */
export class ManifestError extends InputError {
  readonly file: string;
  constructor(file: string, reason: string, options: { cause?: unknown } = {}) {
    super(`${file}: ${reason}`, { ...options, retry: 'wait' });
    this.file = file;
  }
}
