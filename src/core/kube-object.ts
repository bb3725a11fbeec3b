/**
 * The shape of a Kubernetes object as plain JSON, and an object's identity. Pure types: renderers produce these,
 * the Kubernetes layer (src/kube) reads and writes them, and neither needs the other to name them.
 */

/** Identity of an object. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** Any object as JSON. */
export interface AnyObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    uid?: string;
    resourceVersion?: string;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
