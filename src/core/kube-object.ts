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

/** The identity of `o` (namespace only when it has one). */
export function objectRef(o: AnyObject): ObjectRef {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
  };
}
