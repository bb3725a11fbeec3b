/** Who is acting on the API: the authenticated caller in its org (and the MCP tool acting for it, if any). */
import type { Caller, CallerOrg } from '../auth/caller.ts';

/** The authenticated caller acting in its org. */
export interface Actor {
  caller: Caller;
  org: CallerOrg;
  /** The MCP tool acting for the caller, when the call came through /api/v1/mcp; audit entries name it. */
  tool?: string;
}
