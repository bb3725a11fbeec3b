import { describe, expect, it } from 'vitest';
import type { OrgRole } from '../core/permissions.ts';
import type { RoleBinding } from '../store/role-bindings.ts';
import type { Caller, KeyCeiling } from './caller.ts';
import { canAnywhere, canI, decide, shellPowerOf } from './rbac.ts';
import { orgRoleOfMember } from './roles.ts';

function caller(role: OrgRole | undefined, bindings: Partial<RoleBinding>[] = [], key?: KeyCeiling): Caller {
  return {
    kind: key ? 'key' : 'session',
    user: { id: 'u', email: 'u@x', name: 'u' },
    org: { id: 'o', slug: 'o', name: 'o' },
    role,
    bindings: bindings.map((b, i) => ({
      id: String(i),
      orgId: 'o',
      subjectType: 'user',
      subjectId: 'u',
      scope: 'org',
      scopeId: '',
      level: 'read',
      createdAt: '',
      ...b,
    })),
    ...(key ? { key } : {}),
  };
}
const key = (role: KeyCeiling['role'], scope: KeyCeiling['scope'] = 'org', scopeId = ''): KeyCeiling => ({
  id: 'k',
  role,
  scope,
  scopeId,
});

describe('canI', () => {
  it('gives org roles their permissions org-wide; audit:read is not the Viewer’s', () => {
    expect(canI(caller('Owner'), 'org:manage', 'org', '')).toBe(true);
    expect(canI(caller('Admin'), 'org:manage', 'org', '')).toBe(false);
    expect(canI(caller('Contributor'), 'deployment:manage', 'deployment', 'c/ns')).toBe(true);
    expect(canI(caller('Contributor'), 'audit:read', 'org', '')).toBe(true);
    expect(canI(caller('Viewer'), 'audit:read', 'org', '')).toBe(false);
    expect(canI(caller('Viewer'), 'deployment:read', 'deployment', '/web')).toBe(true);
    expect(canI(caller('Viewer'), 'deployment:sync', 'deployment', '/web')).toBe(false);
  });

  it('grants bindings inside their scope only', () => {
    const c = caller(undefined, [{ scope: 'cluster', scopeId: 'east', level: 'sync' }]);
    expect(canI(c, 'deployment:sync', 'deployment', 'east/web')).toBe(true);
    expect(canI(c, 'deployment:sync', 'cluster', 'east')).toBe(true);
    expect(canI(c, 'deployment:sync', 'deployment', 'west/web')).toBe(false);
    expect(canI(c, 'deployment:manage', 'deployment', 'east/web')).toBe(false);
    expect(canI(c, 'deployment:sync', 'org', '')).toBe(false);
    const d = caller('Viewer', [{ scope: 'deployment', scopeId: '/web', level: 'admin' }]);
    expect(canI(d, 'deployment:manage', 'deployment', '/web')).toBe(true);
    expect(canI(d, 'deployment:manage', 'deployment', '/api')).toBe(false);
  });

  it('bounds API keys by role ceiling, scope ceiling and the owner’s own grants', () => {
    expect(canI(caller('Owner', [], key('read')), 'deployment:read', 'deployment', '/web')).toBe(true);
    expect(canI(caller('Owner', [], key('read')), 'deployment:sync', 'deployment', '/web')).toBe(false);
    expect(canI(caller('Owner', [], key('sync')), 'deployment:sync', 'deployment', '/web')).toBe(true);
    expect(canI(caller('Owner', [], key('sync')), 'deployment:manage', 'deployment', '/web')).toBe(false);
    expect(canI(caller('Owner', [], key('admin')), 'deployment:manage', 'deployment', '/web')).toBe(true);
    expect(canI(caller('Viewer', [], key('admin')), 'deployment:sync', 'deployment', '/web')).toBe(false);
    const scoped = caller('Owner', [], key('admin', 'deployment', '/web'));
    expect(canI(scoped, 'deployment:manage', 'deployment', '/web')).toBe(true);
    expect(canI(scoped, 'deployment:manage', 'deployment', '/api')).toBe(false);
    expect(canI(scoped, 'audit:read', 'org', '')).toBe(false);
    const cluster = caller('Owner', [], key('sync', 'cluster', 'east'));
    expect(canI(cluster, 'deployment:sync', 'deployment', 'east/web')).toBe(true);
    expect(canI(cluster, 'deployment:sync', 'deployment', '/web')).toBe(false);
  });

  it('never lets a key use a session-only permission', () => {
    expect(canI(caller('Owner'), 'secretstore:manage', 'org', '')).toBe(true);
    expect(canI(caller('Owner', [], key('admin')), 'secretstore:manage', 'org', '')).toBe(false);
    expect(canI(caller('Owner', [], key('admin')), 'registry:manage', 'org', '')).toBe(false);
  });

  it('denies unknown permissions, unknown scopes and callers without an org', () => {
    expect(canI(caller('Owner'), 'deployment:fly', 'org', '')).toBe(false);
    expect(canI(caller('Owner'), 'deployment:read', 'galaxy', '')).toBe(false);
    expect(canI({ ...caller('Owner'), org: undefined }, 'deployment:read', 'org', '')).toBe(false);
  });

  it('canAnywhere finds a grant at any bound scope', () => {
    expect(canAnywhere(caller(undefined, [{ scope: 'deployment', scopeId: '/web' }]), 'deployment:read')).toBe(true);
    expect(canAnywhere(caller(undefined), 'deployment:read')).toBe(false);
    expect(canAnywhere(caller('Owner', [], key('read', 'deployment', '/web')), 'deployment:read')).toBe(true);
  });
});

describe('orgRoleOfMember', () => {
  it('maps Better Auth member roles, taking the highest of several', () => {
    expect(orgRoleOfMember('owner')).toBe('Owner');
    expect(orgRoleOfMember('member')).toBe('Contributor');
    expect(orgRoleOfMember('viewer,admin')).toBe('Admin');
    expect(orgRoleOfMember('nobody')).toBeUndefined();
  });
});

describe('decide', () => {
  it('names the team binding that grants, and why a key is refused', () => {
    const member = caller('Viewer', [
      { id: 'b1', subjectType: 'team', subjectId: 'team-1', scope: 'deployment', scopeId: '/web', level: 'sync' },
    ]);
    expect(decide(member, 'deployment:sync', 'deployment', '/web')).toEqual({
      allowed: true,
      grants: [
        {
          source: 'binding',
          bindingId: 'b1',
          subjectType: 'team',
          subjectId: 'team-1',
          scope: 'deployment',
          scopeId: '/web',
          level: 'sync',
        },
      ],
    });
    expect(decide(member, 'deployment:read', 'deployment', '/web').grants.map((g) => g.source)).toEqual([
      'role',
      'binding',
    ]);
    // Incidents and remediations of a deployment follow its permissions.
    expect(canI(member, 'remediation:approve', 'deployment', '/web')).toBe(true);
    expect(canI(member, 'remediation:approve', 'deployment', '/api')).toBe(false);
    const keyed = caller('Owner', [], key('read'));
    expect(decide(keyed, 'deployment:sync', 'org', '')).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/ceiling read/),
    });
  });
});

describe('shellPowerOf', () => {
  it('gives admins an admin shell, their read or sync keys a view shell, others none', () => {
    expect(shellPowerOf(caller('Owner'), 'east')).toBe('admin');
    expect(shellPowerOf(caller('Admin', [], key('admin')), 'east')).toBe('admin');
    expect(shellPowerOf(caller('Admin', [], key('read')), 'east')).toBe('view');
    expect(shellPowerOf(caller('Owner', [], key('sync', 'cluster', 'east')), 'east')).toBe('view');
    expect(shellPowerOf(caller('Owner', [], key('admin', 'cluster', 'west')), 'east')).toBeUndefined();
    expect(shellPowerOf(caller('Contributor'), 'east')).toBeUndefined();
    expect(shellPowerOf(caller('Viewer'), 'east')).toBeUndefined();
  });

  it('gives an admin binding on the cluster an admin shell there only', () => {
    const c = caller('Viewer', [{ scope: 'cluster', scopeId: 'east', level: 'admin' }]);
    expect(shellPowerOf(c, 'east')).toBe('admin');
    expect(shellPowerOf(c, 'west')).toBeUndefined();
    expect(
      shellPowerOf(caller(undefined, [{ scope: 'deployment', scopeId: 'east/web', level: 'admin' }]), 'east'),
    ).toBe(undefined);
  });
});
