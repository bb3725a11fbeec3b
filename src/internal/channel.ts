/**
 * The internal channel from the operator to the server (docs/compatibility.md, "Internal channel"). The operator
 * holds no database and no credentials of its own: what it needs from the server, or must tell it, goes through
 * this interface. `svc start` runs both in one process and wires the server's implementation in directly
 * (./local-channel.ts); `svc operator` run alone calls the server's `/internal/*` routes over HTTP with its
 * credential (./http-channel.ts). Wave 2 adds clusters' kubeconfigs, registry credentials and secret-store values.
 */
import type { RegistryEndpoint } from '../registry/index.ts';

/** Actions the operator may record: those of contract §6.4 that happen without a caller. */
export const SYSTEM_AUDIT_ACTIONS = ['app.sync', 'app.deploy'] as const;
export type SystemAuditAction = (typeof SYSTEM_AUDIT_ACTIONS)[number];

/**
 * An audit entry of a caller-less action (contract §2.8: user_id empty), about an App. The org is the one whose
 * namespace (`org-<slug>`) holds the App resource.
 */
export interface SystemAuditEntry {
  /** Namespace of the App resource on the management cluster; names the org. */
  orgNamespace: string;
  action: SystemAuditAction;
  resourceType: 'app';
  /** The App resource's uid, when known. */
  resourceId?: string;
  resourceName: string;
  details: Record<string, unknown>;
}

/** What the operator asks of the server. Implementations throw typed errors (SvcError) with retry hints. */
export interface ServerChannel {
  /** Records one caller-less audit entry in the org owning `entry.orgNamespace`. */
  recordAudit(entry: SystemAuditEntry): Promise<void>;
  /**
   * The registry `name` of the org owning `orgNamespace` (an App's `spec.source.image.registryRef`): its host and
   * the credentials to present. NotFoundError (retry hint `wait`: the registry may be registered later) when the
   * org has no such registry.
   */
  registry(orgNamespace: string, name: string): Promise<RegistryEndpoint>;
}

/** Path of the audit route, below `/internal` (and `/api/v1/internal`). */
export const INTERNAL_AUDIT_PATH = '/audit';
/** Path of the registry route, below `/internal`: `/registries/<org namespace>/<name>`. */
export const INTERNAL_REGISTRY_PATH = '/registries';
/** The two prefixes the server serves its internal routes under (contract §4.3 writes them both ways). */
export const INTERNAL_PREFIXES = ['/internal', '/api/v1/internal'] as const;
