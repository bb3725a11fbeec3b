/** How the caller, its sessions and a can-i decision look in the API. */
import type { Static } from 'typebox';
import type { Caller } from '../../auth/caller.ts';
import type { Decision, Grant as RbacGrant } from '../../auth/rbac.ts';
import type { Level, Scope } from '../../core/permissions.ts';
import type { SessionRecord } from '../../store/sessions.ts';
import type { CanIAnswer, Grant, Me, Session } from './contract.ts';

export function meView(caller: Caller): Static<typeof Me> {
  const { id, email, name } = caller.user;
  return {
    user: { id, email, name, role: caller.role ?? '', orgId: caller.org?.id ?? '' },
    org: caller.org ? { id: caller.org.id, slug: caller.org.slug, name: caller.org.name } : null,
    auth: caller.kind,
  };
}

export function sessionView(s: SessionRecord & { current: boolean }): Static<typeof Session> {
  return { id: s.id, current: s.current, createdAt: s.createdAt, expiresAt: s.expiresAt };
}

function grantView(g: RbacGrant): Static<typeof Grant> {
  if (g.source === 'role') return { source: 'role', role: g.role };
  return {
    source: 'binding',
    binding_id: g.bindingId,
    subject_type: g.subjectType,
    subject_id: g.subjectId,
    scope: g.scope as Scope,
    scope_id: g.scopeId,
    level: g.level as Level,
  };
}

export function canIView(d: Decision): Static<typeof CanIAnswer> {
  return { allowed: d.allowed, via: d.grants.map(grantView), ...(d.reason ? { reason: d.reason } : {}) };
}
