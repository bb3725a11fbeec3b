/**
 * Shell pods (POST /clusters/{name}/shell; docs/compatibility.md "Shell pods"). A shell is a Pod with kubectl in
 * svc's own namespace `svc-shell` on the cluster, running as a ServiceAccount of its own whose power was chosen
 * from the caller's permissions:
 * - `view`: the built-in ClusterRole `view` (reads most objects, never Secrets; writes nothing);
 * - `admin`: `cluster-admin` on a cluster-wide registration, or the ClusterRole `admin` in each allowlisted
 *   namespace when the cluster has an allowlist.
 * Each shell also gets an attach ServiceAccount that may only get its Pod and exec into it; the API answers a
 * TokenRequest token of that account bound to an (empty) Secret of the shell: it expires with the shell (or after
 * ten minutes, Kubernetes' shortest token lifetime, when the shell is shorter) and stops working as soon as the
 * shell is removed (Kubernetes binds a token to a Pod only for the Pod's own ServiceAccount, which holds the shell's
 * whole power; the Secret anchors the narrower attach account instead). Everything is labelled
 * `cd.svc.space/shell=<id>` and removed when the shell expires (src/api/clusters/shell-janitor.ts); the Pod also
 * carries `activeDeadlineSeconds`, so it stops at expiry even if no svc server is running.
 */
import { type AnyObject, isNotFound, type KubeConnection, type ObjectRef } from '../kube/index.ts';

/** svc's namespace for shell pods on every cluster. */
export const SHELL_NAMESPACE = 'svc-shell';
/** Label carried by everything created for one shell (value: the shell id). */
export const SHELL_LABEL = 'cd.svc.space/shell';
/** The Pod's container (what `kubectl exec -c` names). */
export const SHELL_CONTAINER = 'shell';
/** Kubernetes' shortest TokenRequest lifetime. */
export const MIN_TOKEN_SECONDS = 600;

export type ShellPower = 'view' | 'admin';

/** One shell to create. */
export interface ShellSpec {
  /** Short random id (DNS-safe, lowercase hex). */
  id: string;
  power: ShellPower;
  /** Container image with kubectl and a shell (SVC_SHELL_IMAGE). */
  image: string;
  ttlSeconds: number;
  expiresAt: Date;
  /** The cluster's namespace allowlist ([] = cluster-wide). */
  allowlist: readonly string[];
  /** The svc user who asked, for the annotations. */
  createdBy: string;
}

/** What a created shell gives its caller. */
export interface CreatedShell {
  pod: string;
  serviceAccount: string;
  attachToken: string;
  attachTokenExpiresAt: string;
}

const names = (id: string) => ({ pod: `svc-shell-${id}`, power: `svc-shell-${id}`, attach: `svc-shell-${id}-attach` });

const RBAC = 'rbac.authorization.k8s.io/v1';

/**
 * The objects of one shell except the namespace, in creation order: the two ServiceAccounts, the power binding(s),
 * the attach Role and RoleBinding, the Secret the attach token is bound to, the Pod. Pure.
 */
export function shellObjects(spec: ShellSpec): AnyObject[] {
  const n = names(spec.id);
  const labels = { 'app.kubernetes.io/managed-by': 'svc', [SHELL_LABEL]: spec.id };
  const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), labels });
  const subject = { kind: 'ServiceAccount', name: n.power, namespace: SHELL_NAMESPACE };
  const power: AnyObject[] =
    spec.allowlist.length === 0
      ? [
          {
            apiVersion: RBAC,
            kind: 'ClusterRoleBinding',
            metadata: meta(n.power),
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRoleOf(spec) },
            subjects: [subject],
          },
        ]
      : spec.allowlist.map((namespace) => ({
          apiVersion: RBAC,
          kind: 'RoleBinding',
          metadata: meta(n.power, namespace),
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRoleOf(spec) },
          subjects: [subject],
        }));
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(n.power, SHELL_NAMESPACE) },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(n.attach, SHELL_NAMESPACE) },
    ...power,
    {
      apiVersion: RBAC,
      kind: 'Role',
      metadata: meta(n.attach, SHELL_NAMESPACE),
      rules: [
        { apiGroups: [''], resources: ['pods'], resourceNames: [n.pod], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods/exec', 'pods/attach'], resourceNames: [n.pod], verbs: ['get', 'create'] },
      ],
    },
    {
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: meta(n.attach, SHELL_NAMESPACE),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: n.attach },
      subjects: [{ kind: 'ServiceAccount', name: n.attach, namespace: SHELL_NAMESPACE }],
    },
    // The attach token is bound to this object: deleting it (with the shell) invalidates the token.
    { apiVersion: 'v1', kind: 'Secret', metadata: meta(n.attach, SHELL_NAMESPACE), type: 'Opaque' },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...meta(n.pod, SHELL_NAMESPACE),
        annotations: {
          'cd.svc.space/shell-power': spec.power,
          'cd.svc.space/shell-expires-at': spec.expiresAt.toISOString(),
          'cd.svc.space/created-by': spec.createdBy,
        },
      },
      spec: {
        serviceAccountName: n.power,
        automountServiceAccountToken: true,
        restartPolicy: 'Never',
        // The kubelet ends the Pod at expiry even when no svc server is left to remove it.
        activeDeadlineSeconds: spec.ttlSeconds,
        terminationGracePeriodSeconds: 1,
        enableServiceLinks: false,
        securityContext: { runAsNonRoot: true, runAsUser: 65534, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [
          {
            name: SHELL_CONTAINER,
            image: spec.image,
            command: ['sleep', String(spec.ttlSeconds)],
            stdin: true,
            tty: true,
            env: [{ name: 'HOME', value: '/tmp' }],
            resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '256Mi' } },
            securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          },
        ],
      },
    },
  ];
}

function clusterRoleOf(spec: ShellSpec): string {
  if (spec.power === 'view') return 'view';
  return spec.allowlist.length === 0 ? 'cluster-admin' : 'admin';
}

/** The refs of `objects` in removal order (the Pod first: that ends sessions; then the token's Secret anchor). */
export function removalOrder(objects: readonly AnyObject[]): ObjectRef[] {
  return [...objects].reverse().map((o) => ({
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
  }));
}

/**
 * Creates `objects` (from shellObjects) on the cluster, in svc's shell namespace (created when missing), and mints
 * the attach token bound to the shell's Secret, valid for `tokenSeconds` (at least MIN_TOKEN_SECONDS). A power RoleBinding in
 * an allowlisted namespace that does not exist yet is skipped. Returns the shell and the objects actually created.
 * Throws KubeApiError; the caller removes what was created (the refs are recorded before this runs).
 */
export async function createShell(
  conn: KubeConnection,
  spec: ShellSpec,
  objects: readonly AnyObject[],
  tokenSeconds: number,
): Promise<CreatedShell> {
  const n = names(spec.id);
  await conn.objects.apply({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: SHELL_NAMESPACE, labels: { 'app.kubernetes.io/managed-by': 'svc' } },
  });
  let anchor: AnyObject | undefined;
  for (const obj of objects) {
    try {
      const live = await conn.objects.apply(obj);
      if (obj.kind === 'Secret') anchor = live;
    } catch (err) {
      const missingNamespace =
        obj.kind === 'RoleBinding' && obj.metadata.namespace !== SHELL_NAMESPACE && isNotFound(err);
      if (!missingNamespace) throw err;
    }
  }
  const token = await conn.client.request<{ status?: { token?: string; expirationTimestamp?: string } }>(
    `/api/v1/namespaces/${SHELL_NAMESPACE}/serviceaccounts/${n.attach}/token`,
    {
      method: 'POST',
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {
          expirationSeconds: Math.max(MIN_TOKEN_SECONDS, tokenSeconds),
          boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: n.attach, uid: anchor?.metadata.uid },
        },
      },
    },
  );
  if (!token.status?.token) throw new Error('the cluster answered the TokenRequest without a token');
  return {
    pod: n.pod,
    serviceAccount: n.power,
    attachToken: token.status.token,
    attachTokenExpiresAt: token.status.expirationTimestamp ?? '',
  };
}

/** Deletes every object of a shell (already gone is fine). Throws KubeApiError when the cluster refuses. */
export async function removeShell(conn: KubeConnection, refs: readonly ObjectRef[]): Promise<void> {
  for (const ref of refs) await conn.objects.delete(ref);
}
