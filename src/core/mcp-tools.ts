/**
 * The MCP tool catalogue as data: each tool's name, the permission it needs somewhere in the org, and whether it
 * changes state. Pure, so the API key routes can validate a key's tool allowlist without the MCP code, and the MCP
 * server (src/mcp) builds its tools from it; the implementations live in src/mcp/tools.ts, keyed by these names.
 */
import type { Permission } from './permissions.ts';

/** One tool of the catalogue. `permission` undefined: any authenticated key may call it (can_i). */
export interface ToolEntry {
  permission?: Permission;
  /** True when the permission is only ever checked at org scope (the audit log), so only an org grant shows it. */
  orgWide?: boolean;
  /** True for tools that change state (each audited exactly as its REST route). */
  write: boolean;
}

/** Every MCP tool svc offers, in the order tools/list shows them. */
export const TOOL_CATALOGUE = {
  app_list: { permission: 'deployment:read', write: false },
  app_get: { permission: 'deployment:read', write: false },
  app_status: { permission: 'deployment:read', write: false },
  app_events: { permission: 'deployment:read', write: false },
  app_history: { permission: 'deployment:read', write: false },
  app_approvals: { permission: 'deployment:read', write: false },
  app_windows: { permission: 'deployment:read', write: false },
  app_diff: { permission: 'deployment:read', write: false },
  preview: { permission: 'deployment:read', write: false },
  app_logs: { permission: 'deployment:read', write: false },
  import_dry_run: { permission: 'deployment:read', write: false },
  app_sync: { permission: 'deployment:sync', write: true },
  app_deploy: { permission: 'deployment:sync', write: true },
  app_rollback: { permission: 'deployment:sync', write: true },
  app_restart: { permission: 'deployment:sync', write: true },
  app_approve: { permission: 'deployment:sync', write: true },
  app_terminate: { permission: 'deployment:sync', write: true },
  app_release: { permission: 'deployment:sync', write: true },
  app_freeze: { permission: 'deployment:manage', write: true },
  app_unfreeze: { permission: 'deployment:manage', write: true },
  app_create_helm_chart: { permission: 'deployment:manage', write: true },
  app_create_from_catalog: { permission: 'deployment:manage', write: true },
  import_confirm: { permission: 'deployment:manage', write: true },
  import_undo: { permission: 'deployment:manage', write: true },
  repository_list: { permission: 'repository:read', orgWide: true, write: false },
  repository_charts: { permission: 'repository:read', orgWide: true, write: false },
  audit_list: { permission: 'audit:read', orgWide: true, write: false },
  health_check_list: { permission: 'healthcheck:read', orgWide: true, write: false },
  catalog_list: { permission: 'catalog:read', orgWide: true, write: false },
  delivery_windows: { permission: 'deployment:read', orgWide: true, write: false },
  appset_list: { permission: 'deployment:read', orgWide: true, write: false },
  appset_get: { permission: 'deployment:read', orgWide: true, write: false },
  can_i: { write: false },
} as const satisfies Record<string, ToolEntry>;

export type ToolName = keyof typeof TOOL_CATALOGUE;

/** Every tool name, in catalogue order. */
export const TOOL_NAMES = Object.keys(TOOL_CATALOGUE) as ToolName[];

/** Whether `name` is a tool of the catalogue. */
export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOL_CATALOGUE, name);
}
