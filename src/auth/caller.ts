/** Who is calling: the authenticated identity, its org, its grants there, and how it authenticated. */
import type { Level, OrgRole, Scope } from '../core/permissions.ts';
import type { RoleBinding } from '../store/role-bindings.ts';

export interface CallerOrg {
  id: string;
  slug: string;
  name: string;
}

/** The ceilings of the API key a caller authenticated with. */
export interface KeyCeiling {
  id: string;
  role: Level;
  scope: Scope;
  scopeId: string;
  /** The key's MCP tool allowlist; such a key works on the MCP endpoint only. Undefined = no allowlist. */
  tools?: readonly string[];
}

export interface Caller {
  kind: 'session' | 'key';
  user: { id: string; email: string; name: string };
  /** The org every request is scoped to; undefined when the user belongs to none. */
  org: CallerOrg | undefined;
  /** The user's org role; undefined without an org or with an unknown member role. */
  role: OrgRole | undefined;
  /** Role bindings of the user (directly or through teams) in the org. */
  bindings: RoleBinding[];
  /** Set for session callers. */
  sessionId?: string;
  /** Set for API-key callers. */
  key?: KeyCeiling;
}
