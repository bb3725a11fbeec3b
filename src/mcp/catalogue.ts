/**
 * Which MCP tools a caller sees: the catalogue (src/core/mcp-tools.ts) filtered by the key's allowlist and the
 * caller's permissions. Pure (no SDK, no services), so the visibility rule can be unit-tested.
 */

import type { Caller } from '../auth/caller.ts';
import { canAnywhere, canI } from '../auth/rbac.ts';
import { TOOL_CATALOGUE, TOOL_NAMES, type ToolEntry, type ToolName } from '../core/mcp-tools.ts';

/**
 * The tools `caller` may see and call, in catalogue order: those in its key's allowlist (all, without one) whose
 * permission the caller holds somewhere in its org (at org scope for org-wide tools), bounded by the key's role and
 * scope ceilings (`canAnywhere`, `canI`).
 * A tool whose permission the caller holds only at some scopes is visible; each call is still checked on the
 * App it names, by the same service the REST route uses.
 */
export function visibleTools(caller: Caller): ToolName[] {
  const allowlist = caller.key?.tools;
  return TOOL_NAMES.filter((name) => {
    if (allowlist && !allowlist.includes(name)) return false;
    const entry: ToolEntry = TOOL_CATALOGUE[name];
    if (entry.permission === undefined) return true;
    return entry.orgWide ? canI(caller, entry.permission, 'org', '') : canAnywhere(caller, entry.permission);
  });
}
