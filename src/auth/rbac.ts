/**
 * The one authorization function. Every route and `POST /auth/can-i` decide through `decide` (`canI` is its yes/no),
 * so what can-i answers is what the routes enforce, and can-i can say which grants allowed it.
 */
import {
  ceilingAllows,
  isPermission,
  LEVELS,
  type Level,
  type OrgRole,
  type Permission,
  permissionsOfBinding,
  permissionsOfRole,
  SCOPES,
  type Scope,
  SESSION_ONLY_PERMISSIONS,
  scopeContains,
} from '../core/permissions.ts';
import type { Caller } from './caller.ts';

function isScope(v: string): v is Scope {
  return (SCOPES as readonly string[]).includes(v);
}
function isLevel(v: string): v is Level {
  return (LEVELS as readonly string[]).includes(v);
}

/** Where a permission comes from: the caller's org role, or a role binding held directly or through a team. */
export type Grant =
  | { source: 'role'; role: OrgRole }
  | {
      source: 'binding';
      bindingId: string;
      subjectType: 'user' | 'team';
      subjectId: string;
      scope: string;
      scopeId: string;
      level: string;
    };

/** A decision: allowed or not, every grant that allows it, and (when denied) why in one sentence. */
export interface Decision {
  allowed: boolean;
  grants: Grant[];
  reason?: string;
}

/**
 * Whether the caller may exercise `permission` at `scope`/`scopeId` (org: '', cluster: name, deployment:
 * `<cluster>/<namespace>`), and through which grants. Grants come from the org role (org-wide) and from role
 * bindings, the user's own and its teams', whose scope contains the target. An API key caller is further bounded by
 * the key's role ceiling and scope ceiling, and never holds a session-only permission. Unknown permissions and
 * scopes are denied.
 */
export function decide(caller: Caller, permission: string, scope: string, scopeId: string): Decision {
  const deny = (reason: string): Decision => ({ allowed: false, grants: [], reason });
  if (!caller.org) return deny('the caller belongs to no organization');
  if (!isPermission(permission)) return deny(`unknown permission ${permission}`);
  if (!isScope(scope)) return deny(`unknown scope ${scope}`);
  const target = { scope, scopeId: scope === 'org' ? '' : scopeId };
  if (caller.key) {
    if (SESSION_ONLY_PERMISSIONS.has(permission)) return deny(`${permission} needs a session, not an API key`);
    if (!ceilingAllows(caller.key.role, permission)) {
      return deny(`the API key's role ceiling ${caller.key.role} does not allow ${permission}`);
    }
    if (!scopeContains({ scope: caller.key.scope, scopeId: caller.key.scopeId }, target)) {
      return deny(`the API key's scope ${caller.key.scope} ${caller.key.scopeId} does not contain the target`);
    }
  }
  const grants = grantsOf(caller, permission, target);
  return grants.length > 0 ? { allowed: true, grants } : deny(`no role or binding grants ${permission} there`);
}

/** Whether the caller may exercise `permission` at `scope`/`scopeId` (see `decide`). */
export function canI(caller: Caller, permission: string, scope: string, scopeId: string): boolean {
  return decide(caller, permission, scope, scopeId).allowed;
}

function grantsOf(caller: Caller, permission: Permission, target: { scope: Scope; scopeId: string }): Grant[] {
  const grants: Grant[] = [];
  if (caller.role && permissionsOfRole(caller.role).has(permission)) grants.push({ source: 'role', role: caller.role });
  for (const b of caller.bindings) {
    if (
      isScope(b.scope) &&
      isLevel(b.level) &&
      scopeContains({ scope: b.scope, scopeId: b.scopeId }, target) &&
      permissionsOfBinding(b.level).has(permission)
    ) {
      grants.push({
        source: 'binding',
        bindingId: b.id,
        subjectType: b.subjectType,
        subjectId: b.subjectId,
        scope: b.scope,
        scopeId: b.scopeId,
        level: b.level,
      });
    }
  }
  return grants;
}

/**
 * Whether the caller holds `permission` anywhere in its org (at org scope or through any binding), bounded by its
 * key. Used where a route lists across scopes and filters per item afterwards.
 */
export function canAnywhere(caller: Caller, permission: string): boolean {
  if (canI(caller, permission, 'org', '')) return true;
  const candidates = caller.bindings.map((b) => ({ scope: b.scope, scopeId: b.scopeId }));
  if (caller.key) candidates.push({ scope: caller.key.scope, scopeId: caller.key.scopeId });
  return candidates.some((c) => canI(caller, permission, c.scope, c.scopeId));
}

/**
 * The power of a shell pod the caller may open on `cluster` (contract §4.3: chosen from the caller's effective
 * permissions): undefined without `cluster:shell` there; `admin` when the caller may also manage deployments across
 * that whole cluster (`deployment:manage` at cluster scope, within an API key's ceiling); else `view` — e.g. an API
 * key with a read or sync ceiling whose owner holds `cluster:shell`.
 */
export function shellPowerOf(caller: Caller, cluster: string): 'view' | 'admin' | undefined {
  if (!canI(caller, 'cluster:shell', 'cluster', cluster)) return undefined;
  return canI(caller, 'deployment:manage', 'cluster', cluster) ? 'admin' : 'view';
}
