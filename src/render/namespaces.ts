/**
 * Default namespace for namespaced objects. Whether a kind is namespaced comes from API discovery when the
 * caller has it, from CRDs in the rendered set, and otherwise from a list of well-known cluster-scoped kinds.
 */
import type { KubeObject } from './types.ts';

/** Answers whether `apiVersion`/`kind` is namespaced; undefined when it does not know. */
export type ScopeLookup = (apiVersion: string, kind: string) => boolean | undefined;

const CLUSTER_SCOPED = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'StorageClass',
  'PriorityClass',
  'IngressClass',
  'RuntimeClass',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'CSIDriver',
  'CSINode',
  'VolumeAttachment',
  'CertificateSigningRequest',
  'FlowSchema',
  'PriorityLevelConfiguration',
]);

/** The group of an apiVersion (`apps/v1` → `apps`, `v1` → ``). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * Sets `metadata.namespace` to `namespace` on namespaced objects that have none, and removes a namespace from
 * cluster-scoped ones. Unknown kinds count as namespaced unless a CRD in the set says otherwise.
 */
export function defaultNamespace(objects: KubeObject[], namespace: string, lookup?: ScopeLookup): KubeObject[] {
  const crdScopes = new Map<string, boolean>();
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition') continue;
    const spec = (o as { spec?: { group?: string; names?: { kind?: string }; scope?: string } }).spec;
    if (spec?.group && spec.names?.kind) crdScopes.set(`${spec.group}/${spec.names.kind}`, spec.scope !== 'Cluster');
  }
  return objects.map((o) => {
    const namespaced =
      lookup?.(o.apiVersion, o.kind) ??
      crdScopes.get(`${groupOf(o.apiVersion)}/${o.kind}`) ??
      !CLUSTER_SCOPED.has(o.kind);
    if (namespaced && !o.metadata.namespace) return { ...o, metadata: { ...o.metadata, namespace } };
    if (!namespaced && o.metadata.namespace !== undefined) {
      const { namespace: _dropped, ...meta } = o.metadata;
      return { ...o, metadata: meta as KubeObject['metadata'] };
    }
    return o;
  });
}
