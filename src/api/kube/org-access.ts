/**
 * The operator's access to an org namespace. Installed with least privilege (deploy/chart), the operator may read
 * Secrets only where a RoleBinding lets it: the server, which creates each org namespace, binds the operator's org
 * ClusterRole there (SVC_ORG_OPERATOR_ROLE) for the operator's ServiceAccounts (SVC_OPERATOR_SERVICE_ACCOUNTS), so
 * push events of the org's Apps can be verified with their `spec.webhook.secretRef` Secret and no Secret outside
 * org namespaces is readable. docs/install.md, "RBAC".
 */

/** What to bind in each org namespace: a ClusterRole, for ServiceAccount usernames. */
export interface OrgOperatorAccess {
  clusterRole: string;
  /** `system:serviceaccount:<namespace>:<name>` usernames (config validates the form). */
  serviceAccounts: string[];
}

/** A rbac.authorization.k8s.io/v1 RoleBinding as svc writes it. */
export interface RoleBinding {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'RoleBinding';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  roleRef: { apiGroup: 'rbac.authorization.k8s.io'; kind: 'ClusterRole'; name: string };
  subjects: Array<{ kind: 'ServiceAccount'; name: string; namespace: string }>;
}

/**
 * The RoleBinding, named after the ClusterRole, that binds `access.clusterRole` in `namespace` to each ServiceAccount
 * of `access`. Usernames not of the ServiceAccount form are left out.
 */
export function orgOperatorBinding(namespace: string, access: OrgOperatorAccess): RoleBinding {
  const subjects = access.serviceAccounts.flatMap((username) => {
    const [, ns, name] = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username) ?? [];
    return ns && name ? [{ kind: 'ServiceAccount' as const, name, namespace: ns }] : [];
  });
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: {
      name: access.clusterRole,
      namespace,
      labels: { 'app.kubernetes.io/managed-by': 'svc' },
    },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: access.clusterRole },
    subjects,
  };
}
