/**
 * The one authorization function. Every route and `POST /auth/can-i` call `canI`, so what can-i answers is what the
 * routes enforce.
 */
import {
  ceilingAllows,
  isPermission,
  LEVELS,
  type Level,
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

/**
 * Whether the caller may exercise `permission` at `scope`/`scopeId` (org: '', cluster: name, deployment:
 * `<cluster>/<namespace>`). Grants come from the org role (org-wide) and from role bindings whose scope contains the
 * target. An API key caller is further bounded by the key's role ceiling and scope ceiling, and never holds a
 * session-only permission. Unknown permissions and scopes are denied.
 */
export function canI(caller: Caller, permission: string, scope: string, scopeId: string): boolean {
  if (!caller.org || !isPermission(permission) || !isScope(scope)) return false;
  const target = { scope, scopeId: scope === 'org' ? '' : scopeId };
  if (caller.key) {
    if (SESSION_ONLY_PERMISSIONS.has(permission)) return false;
    if (!ceilingAllows(caller.key.role, permission)) return false;
    if (!scopeContains({ scope: caller.key.scope, scopeId: caller.key.scopeId }, target)) return false;
  }
  return userHolds(caller, permission, target);
}

function userHolds(caller: Caller, permission: Permission, target: { scope: Scope; scopeId: string }): boolean {
  if (caller.role && permissionsOfRole(caller.role).has(permission)) return true;
  return caller.bindings.some(
    (b) =>
      isScope(b.scope) &&
      isLevel(b.level) &&
      scopeContains({ scope: b.scope, scopeId: b.scopeId }, target) &&
      permissionsOfBinding(b.level).has(permission),
  );
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
