import { describe, expect, it } from 'vitest';
import {
  ceilingAllows,
  deploymentScopeId,
  isPermission,
  permissionsOfBinding,
  permissionsOfRole,
  scopeContains,
} from './permissions.ts';

describe('permission catalogue (contract §5.6–5.7)', () => {
  it('names every permission of the contract', () => {
    for (const p of [
      'deployment:read',
      'deployment:manage',
      'deployment:sync',
      'cluster:read',
      'cluster:register',
      'cluster:shell',
      'secretstore:read',
      'secretstore:manage',
      'registry:manage',
      'webhook:manage',
      'audit:read',
    ]) {
      expect(isPermission(p)).toBe(true);
    }
    expect(isPermission('deployment:delete')).toBe(false);
  });

  it('gives audit:read to Owner, Admin and Contributor but not Viewer', () => {
    expect(permissionsOfRole('Owner').has('audit:read')).toBe(true);
    expect(permissionsOfRole('Admin').has('audit:read')).toBe(true);
    expect(permissionsOfRole('Contributor').has('audit:read')).toBe(true);
    expect(permissionsOfRole('Viewer').has('audit:read')).toBe(false);
  });

  it('lets Viewers only read and Contributors deploy but not register clusters', () => {
    const viewer = permissionsOfRole('Viewer');
    expect(viewer.has('deployment:read')).toBe(true);
    expect(viewer.has('deployment:sync')).toBe(false);
    const contributor = permissionsOfRole('Contributor');
    expect(contributor.has('deployment:manage')).toBe(true);
    expect(contributor.has('cluster:register')).toBe(false);
    expect(permissionsOfRole('Admin').has('org:manage')).toBe(false);
  });

  it('orders binding levels read < sync < admin', () => {
    expect(permissionsOfBinding('read').has('deployment:sync')).toBe(false);
    expect(permissionsOfBinding('sync').has('deployment:sync')).toBe(true);
    expect(permissionsOfBinding('sync').has('deployment:manage')).toBe(false);
    expect(permissionsOfBinding('admin').has('deployment:manage')).toBe(true);
  });

  it('lets incidents and remediations follow the deployment permissions of bindings and keys', () => {
    expect(permissionsOfBinding('read').has('incident:read')).toBe(true);
    expect(permissionsOfBinding('read').has('remediation:approve')).toBe(false);
    expect(permissionsOfBinding('sync').has('remediation:approve')).toBe(true);
    expect(permissionsOfBinding('sync').has('incident:manage')).toBe(true);
    expect(permissionsOfRole('Contributor').has('remediation:approve')).toBe(true);
    expect(permissionsOfRole('Viewer').has('remediation:approve')).toBe(false);
    expect(ceilingAllows('sync', 'remediation:approve')).toBe(true);
    expect(ceilingAllows('read', 'incident:manage')).toBe(false);
    expect(ceilingAllows('sync', 'webhook:manage')).toBe(false);
  });

  it('bounds API keys by their ceiling and never allows session-only permissions', () => {
    expect(ceilingAllows('read', 'deployment:read')).toBe(true);
    expect(ceilingAllows('read', 'deployment:sync')).toBe(false);
    expect(ceilingAllows('sync', 'deployment:sync')).toBe(true);
    expect(ceilingAllows('sync', 'deployment:manage')).toBe(false);
    expect(ceilingAllows('admin', 'cluster:register')).toBe(true);
    expect(ceilingAllows('admin', 'secretstore:manage')).toBe(false);
    expect(ceilingAllows('admin', 'registry:manage')).toBe(false);
  });

  it('lets every ceiling ask for a shell (the ceiling bounds its power instead)', () => {
    expect(ceilingAllows('read', 'cluster:shell')).toBe(true);
    expect(ceilingAllows('sync', 'cluster:shell')).toBe(true);
    expect(ceilingAllows('read', 'cluster:register')).toBe(false);
  });

  it('nests scopes org ⊃ cluster ⊃ deployment', () => {
    const dep = { scope: 'deployment', scopeId: deploymentScopeId('edge', 'shop') } as const;
    expect(dep.scopeId).toBe('edge/shop');
    expect(scopeContains({ scope: 'org', scopeId: '' }, dep)).toBe(true);
    expect(scopeContains({ scope: 'cluster', scopeId: 'edge' }, dep)).toBe(true);
    expect(scopeContains({ scope: 'cluster', scopeId: 'core' }, dep)).toBe(false);
    expect(scopeContains(dep, { scope: 'deployment', scopeId: 'edge/shop' })).toBe(true);
    expect(scopeContains(dep, { scope: 'deployment', scopeId: 'edge/cart' })).toBe(false);
    expect(scopeContains(dep, { scope: 'cluster', scopeId: 'edge' })).toBe(false);
    expect(scopeContains({ scope: 'cluster', scopeId: 'edge' }, { scope: 'org', scopeId: '' })).toBe(false);
  });
});
