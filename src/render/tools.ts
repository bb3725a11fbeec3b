import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Pinned versions of the external renderer binaries. scripts/build-binaries.sh installs exactly these into the tools
 * directory (a unit test keeps the two in step).
 */
export const renderToolVersions = { kustomize: 'v5.7.1', helm: 'v4.1.4', sops: 'v3.13.3' } as const;

/** An external binary a renderer runs. */
export type RenderTool = keyof typeof renderToolVersions;

/** Default tools directory: `~/.cache/svc` (where `bash scripts/build-binaries.sh kustomize helm sops` installs). */
export function defaultToolsDir(): string {
  return join(homedir(), '.cache', 'svc');
}

/**
 * The command to spawn for `tool`: the pinned build `<toolsDir>/<tool>-<version>/<tool>` when it is installed,
 * otherwise the bare name, which `child_process.spawn` then looks up on PATH (a user's own kustomize/helm).
 * Pure apart from one existence check; config (SVC_TOOLS_DIR) decides `toolsDir`.
 */
export function resolveRenderTool(tool: RenderTool, toolsDir: string = defaultToolsDir()): string {
  const pinned = join(toolsDir, `${tool}-${renderToolVersions[tool]}`, tool);
  return existsSync(pinned) ? pinned : tool;
}

/** Explicit executable paths (the operator resolves them once from config's tools directory). */
export type ToolPaths = Partial<Record<RenderTool, string>>;

/**
 * The executable to run for `tool`: an explicit path wins, else resolveRenderTool's default (pinned build in the
 * default tools directory, else PATH). Never throws; a missing tool fails when it is run.
 */
export function findTool(tool: RenderTool, explicit: ToolPaths = {}): string {
  return explicit[tool] || resolveRenderTool(tool);
}

/** The executables for a tools directory (config `toolsDir`, SVC_TOOLS_DIR). */
export function toolPaths(toolsDir: string): Required<ToolPaths> {
  return {
    kustomize: resolveRenderTool('kustomize', toolsDir),
    helm: resolveRenderTool('helm', toolsDir),
    sops: resolveRenderTool('sops', toolsDir),
  };
}
