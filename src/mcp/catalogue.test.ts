import { describe, expect, it } from 'vitest';
import type { Caller, KeyCeiling } from '../auth/caller.ts';
import { isToolName, TOOL_NAMES } from '../core/mcp-tools.ts';
import type { OrgRole } from '../core/permissions.ts';
import { visibleTools } from './catalogue.ts';
import { TOOLS } from './tools.ts';

function keyCaller(role: OrgRole, key: Omit<KeyCeiling, 'id'>, bindings: Caller['bindings'] = []): Caller {
  return {
    kind: 'key',
    user: { id: 'u', email: 'u@x', name: 'u' },
    org: { id: 'o', slug: 'o', name: 'o' },
    role,
    bindings,
    key: { id: 'k', ...key },
  };
}

describe('the MCP tool catalogue', () => {
  it('has an implementation for every tool and no other', () => {
    expect(Object.keys(TOOLS).sort()).toEqual([...TOOL_NAMES].sort());
    expect(isToolName('app_sync')).toBe(true);
    expect(isToolName('toString')).toBe(false);
  });

  it('shows a key the tools its role ceiling and its owner allow', () => {
    const read = visibleTools(keyCaller('Owner', { role: 'read', scope: 'org', scopeId: '' }));
    expect(read).toEqual([
      'app_list',
      'app_get',
      'app_status',
      'app_events',
      'app_history',
      'app_approvals',
      'app_windows',
      'app_diff',
      'preview',
      'app_logs',
      'import_dry_run',
      'repository_list',
      'repository_charts',
      'audit_list',
      'health_check_list',
      'catalog_list',
      'delivery_windows',
      'appset_list',
      'appset_get',
      'can_i',
    ]);
    const admin = visibleTools(keyCaller('Owner', { role: 'admin', scope: 'org', scopeId: '' }));
    expect(admin).toEqual(TOOL_NAMES);
    const contributorAdmin = visibleTools(keyCaller('Viewer', { role: 'admin', scope: 'org', scopeId: '' }));
    expect(contributorAdmin).not.toContain('app_sync');
    expect(contributorAdmin).not.toContain('audit_list');
  });

  it('hides org-wide tools from keys scoped below the org', () => {
    const scoped = visibleTools(keyCaller('Owner', { role: 'sync', scope: 'deployment', scopeId: '/shop' }));
    expect(scoped).toContain('app_sync');
    expect(scoped).not.toContain('audit_list');
    expect(scoped).not.toContain('app_freeze');
    expect(scoped).not.toContain('repository_list');
  });

  it('shows a Viewer with a sync binding on one deployment the sync tools for its sync key', () => {
    const binding = {
      id: 'b',
      orgId: 'o',
      subjectType: 'user' as const,
      subjectId: 'u',
      scope: 'deployment',
      scopeId: '/shop',
      level: 'sync',
      createdAt: '',
    };
    const tools = visibleTools(keyCaller('Viewer', { role: 'sync', scope: 'org', scopeId: '' }, [binding]));
    expect(tools).toContain('app_sync');
    expect(tools).not.toContain('app_freeze');
  });

  it('narrows to the allowlist, never beyond the ceilings', () => {
    const allow = visibleTools(
      keyCaller('Owner', { role: 'read', scope: 'org', scopeId: '', tools: ['app_status', 'app_sync'] }),
    );
    expect(allow).toEqual(['app_status']);
  });
});
