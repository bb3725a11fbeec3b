/**
 * Which kustomize and helm executables the renderers run: an explicit path (the operator resolves them once from
 * config's tools directory) wins; otherwise the pinned build in the default tools directory, else PATH
 * (see ./tools.ts).
 */
import { type RenderTool, resolveRenderTool } from './tools.ts';

export type ToolName = RenderTool;

/** Explicit executable paths; unset entries fall back to resolveRenderTool's default. */
export type ToolPaths = Partial<Record<ToolName, string>>;

/** Returns the executable to run for `name`. Never throws; a missing tool fails when it is run. */
export function findTool(name: ToolName, explicit: ToolPaths = {}): string {
  return explicit[name] || resolveRenderTool(name);
}

/** The executables for a tools directory (config `toolsDir`, SVC_TOOLS_DIR). */
export function toolPaths(toolsDir: string): Required<ToolPaths> {
  return { kustomize: resolveRenderTool('kustomize', toolsDir), helm: resolveRenderTool('helm', toolsDir) };
}
