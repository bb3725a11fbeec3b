/**
 * The permission catalogue (contract §5.6), the org roles and what each holds, the role-binding levels, and the API
 * key role ceilings. Pure data plus small pure functions; the evaluation against a caller lives in src/auth.
 */

export const PERMISSIONS = [
  'deployment:read',
  'deployment:sync',
  'deployment:manage',
  'cluster:read',
  'cluster:register',
  'cluster:manage',
  'cluster:shell',
  'secretstore:read',
  'secretstore:manage',
  'registry:read',
  'registry:manage',
  'healthcheck:read',
  'healthcheck:manage',
  'catalog:read',
  'catalog:manage',
  'repository:read',
  'repository:manage',
  'webhook:read',
  'webhook:manage',
  'team:read',
  'team:manage',
  'incident:read',
  'incident:manage',
  'remediation:read',
  'remediation:approve',
  'audit:read',
  'apikey:manage',
  'org:manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Whether `value` names a permission of the catalogue. */
export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/** Permissions an API key can never exercise, whatever its ceiling (contract §5.4). */
export const SESSION_ONLY_PERMISSIONS: ReadonlySet<Permission> = new Set([
  'secretstore:manage',
  'registry:manage',
  'repository:manage',
]);

export const ORG_ROLES = ['Owner', 'Admin', 'Contributor', 'Viewer'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

const READ_ONLY: readonly Permission[] = PERMISSIONS.filter((p) => p.endsWith(':read') && p !== 'audit:read');

const ROLE_PERMISSIONS: Record<OrgRole, readonly Permission[]> = {
  Owner: PERMISSIONS,
  Admin: PERMISSIONS.filter((p) => p !== 'org:manage'),
  Contributor: [
    ...READ_ONLY,
    'audit:read',
    'deployment:sync',
    'deployment:manage',
    'incident:manage',
    'remediation:approve',
    'apikey:manage',
  ],
  Viewer: [...READ_ONLY, 'apikey:manage'],
};

/** Every permission an org member with `role` holds across the whole org. */
export function permissionsOfRole(role: OrgRole): ReadonlySet<Permission> {
  return new Set(ROLE_PERMISSIONS[role]);
}

/** Scopes at which permissions are granted and API keys bounded. */
export const SCOPES = ['org', 'cluster', 'deployment'] as const;
export type Scope = (typeof SCOPES)[number];

/** Levels of a role binding at a scope, and of an API key's role ceiling. */
export const LEVELS = ['read', 'sync', 'admin'] as const;
export type Level = (typeof LEVELS)[number];

/**
 * What each binding level grants inside its scope. Incidents and remediations are about Apps, so they follow the
 * deployment permissions: whoever may read a deployment may read its incidents and remediations, and whoever may
 * sync it may acknowledge its incidents and approve or reject its remediations (which run as operations).
 */
const BINDING_READ: readonly Permission[] = ['deployment:read', 'cluster:read', 'incident:read', 'remediation:read'];
const BINDING_SYNC: readonly Permission[] = [
  ...BINDING_READ,
  'deployment:sync',
  'incident:manage',
  'remediation:approve',
];
const BINDING_PERMISSIONS: Record<Level, readonly Permission[]> = {
  read: BINDING_READ,
  sync: BINDING_SYNC,
  admin: [...BINDING_SYNC, 'deployment:manage', 'cluster:shell'],
};

/** Permissions a role binding of `level` grants inside its scope (a cluster or a deployment). */
export function permissionsOfBinding(level: Level): ReadonlySet<Permission> {
  return new Set(BINDING_PERMISSIONS[level]);
}

/** What a sync key may do beyond reading. */
const SYNC_CEILING: ReadonlySet<Permission> = new Set(['deployment:sync', 'incident:manage', 'remediation:approve']);

/**
 * Whether an API key with role ceiling `ceiling` may exercise `permission` at all (before the owner's own
 * permissions and the key's scope are considered): read keys only read, sync keys read, sync deployments and act on
 * their incidents and remediations (what a sync binding grants), admin keys anything; session-only permissions never.
 * `cluster:shell` passes every ceiling: the ceiling lowers the shell's power instead (a read or sync key gets a view
 * shell, contract §4.3; see shellPowerOf in src/auth/rbac.ts).
 */
export function ceilingAllows(ceiling: Level, permission: Permission): boolean {
  if (SESSION_ONLY_PERMISSIONS.has(permission)) return false;
  if (ceiling === 'admin' || permission === 'cluster:shell') return true;
  if (permission.endsWith(':read') || permission === 'apikey:manage') return true;
  return ceiling === 'sync' && SYNC_CEILING.has(permission);
}

/** A scope plus its id: '' for org, a cluster name, or `<cluster>/<namespace>` for a deployment. */
export interface ScopeRef {
  scope: Scope;
  scopeId: string;
}

/** The deployment scope id of a destination: `<cluster>/<namespace>` (cluster '' = the management cluster). */
export function deploymentScopeId(cluster: string, namespace: string): string {
  return `${cluster}/${namespace}`;
}

/**
 * Whether `outer` contains `inner`: org contains everything; a cluster contains itself and its deployments;
 * a deployment contains only itself.
 */
export function scopeContains(outer: ScopeRef, inner: ScopeRef): boolean {
  if (outer.scope === 'org') return true;
  if (outer.scope === 'cluster') {
    if (inner.scope === 'cluster') return inner.scopeId === outer.scopeId;
    if (inner.scope === 'deployment') return inner.scopeId.split('/')[0] === outer.scopeId;
    return false;
  }
  return inner.scope === 'deployment' && inner.scopeId === outer.scopeId;
}
