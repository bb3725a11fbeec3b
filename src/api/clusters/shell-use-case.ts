/**
 * POST /clusters/{name}/shell (contract §4.3): spawns a shell pod whose power (view or admin) comes from the
 * caller's effective permissions (`shellPowerOf`), records it for the janitor before touching the cluster, and
 * answers how to attach. There is no exec stream through the API: the answer carries what a user runs, `kubectl
 * exec` with a short-lived token of the shell's attach account (see src/clusters/shell.ts and
 * docs/compatibility.md "Shell pods"). Audited `cluster.shell` (never with the token).
 */
import { randomBytes } from 'node:crypto';
import { shellPowerOf } from '../../auth/rbac.ts';
import {
  createShell,
  removalOrder,
  SHELL_CONTAINER,
  SHELL_NAMESPACE,
  type ShellPower,
  shellObjects,
} from '../../clusters/shell.ts';
import { ForbiddenError } from '../../core/errors.ts';
import { toSvcError } from '../../kube/index.ts';
import { ClusterShellStore } from '../../store/cluster-shells.ts';
import type { ClusterRecord } from '../../store/clusters.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';
import { removeShellObjects } from './shell-janitor.ts';
import { clusterScope, locateCluster } from './use-cases.ts';

/** Shell lifetime when the caller names none. */
export const DEFAULT_SHELL_TTL_SECONDS = 1800;
export const MIN_SHELL_TTL_SECONDS = 60;
export const MAX_SHELL_TTL_SECONDS = 8 * 3600;

/** The answer of a spawn. `attach.token` is the one credential it holds (see the module comment). */
export interface ShellView {
  id: string;
  cluster: string;
  namespace: string;
  pod: string;
  container: string;
  power: ShellPower;
  service_account: string;
  created_at: string;
  expires_at: string;
  attach: {
    server: string;
    token: string;
    token_expires_at: string;
    /** The CA svc trusts for the cluster (PEM, base64), when it has one. */
    certificate_authority_data?: string;
    insecure_skip_tls_verify?: boolean;
    tls_server_name?: string;
    command: string;
  };
}

/**
 * Spawns a shell on cluster `name` living `ttlSeconds` (`cluster:shell` there; 404 for an unknown cluster). The
 * shell's record is written before anything reaches the cluster (the janitor removes whatever part of it exists,
 * even if this process dies); the audit entry follows once the Pod exists.
 */
export const spawnShell = useCase({
  permission: 'cluster:shell',
  where: { input: (input: { name: string; ttlSeconds?: number | undefined }) => clusterScope(input.name) },
  locate: (ctx, input) => locateCluster(ctx, input.name),
  act: (ctx, input, record) => spawn(ctx, record, input.ttlSeconds ?? DEFAULT_SHELL_TTL_SECONDS),
});

async function spawn(ctx: UseCaseContext, record: ClusterRecord, ttlSeconds: number): Promise<ShellView> {
  const { actor, services } = ctx;
  const name = record.name;
  const power = shellPowerOf(actor.caller, name);
  if (!power) throw new ForbiddenError(`missing permission cluster:shell on cluster "${name}"`);
  const shells = new ClusterShellStore(services.store.db);
  const conn = services.clusterConnections.of(record);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const spec = {
    id: randomBytes(4).toString('hex'),
    power,
    image: services.config.shellImage,
    ttlSeconds,
    expiresAt,
    allowlist: record.namespaces,
    createdBy: actor.caller.user.id,
  };
  const objects = shellObjects(spec);
  const shell = {
    id: spec.id,
    orgId: actor.org.id,
    clusterId: record.id,
    userId: actor.caller.user.id,
    power,
    objects: removalOrder(objects),
    createdAt: now.toISOString(),
    expiresAt: expiresAt.toISOString(),
  };
  // Recorded first: whatever part of it reaches the cluster is removed by the janitor even if this process dies.
  await shells.insert(shell);
  let created: Awaited<ReturnType<typeof createShell>>;
  try {
    created = await createShell(conn, spec, objects, ttlSeconds);
  } catch (err) {
    await removeShellObjects(conn, { ...shell, endedAt: null })
      .then(() => shells.end(shell.id))
      .catch(() => undefined);
    throw toSvcError(err, `cluster "${name}"`);
  }
  await ctx.audit({
    action: 'cluster.shell',
    resourceType: 'cluster',
    resourceId: record.id,
    resourceName: name,
    details: { shell_id: spec.id, power, namespace: SHELL_NAMESPACE, pod: created.pod, expires_at: shell.expiresAt },
  });
  const { config } = conn.client;
  return {
    id: spec.id,
    cluster: name,
    namespace: SHELL_NAMESPACE,
    pod: created.pod,
    container: SHELL_CONTAINER,
    power,
    service_account: created.serviceAccount,
    created_at: shell.createdAt,
    expires_at: shell.expiresAt,
    attach: {
      server: record.serverURL,
      token: created.attachToken,
      token_expires_at: created.attachTokenExpiresAt,
      ...(config.ca ? { certificate_authority_data: Buffer.from(config.ca).toString('base64') } : {}),
      ...(config.insecureSkipVerify ? { insecure_skip_tls_verify: true } : {}),
      ...(config.serverName ? { tls_server_name: config.serverName } : {}),
      command:
        `kubectl --server=${record.serverURL} ` +
        (config.insecureSkipVerify
          ? '--insecure-skip-tls-verify '
          : config.ca
            ? '--certificate-authority=ca.crt '
            : '') +
        (config.serverName ? `--tls-server-name=${config.serverName} ` : '') +
        `--token="$SVC_SHELL_TOKEN" -n ${SHELL_NAMESPACE} exec -it ${created.pod} -c ${SHELL_CONTAINER} -- bash`,
    },
  };
}
