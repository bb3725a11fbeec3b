/**
 * Where the kustomize and helm executables are. An explicit path (from config) wins; else the newest build under
 * ~/.cache/svc/<name>-* or tools-* (what the project setup installs); else the bare name, resolved through PATH
 * by the operating system when it runs.
 */
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type ToolName = 'kustomize' | 'helm';

/** Explicit executable paths; unset entries fall back to the cache directory, then PATH. */
export type ToolPaths = Partial<Record<ToolName, string>>;

/** Returns the executable to run for `name`. Never throws; a missing tool fails when it is run. */
export function findTool(
  name: ToolName,
  explicit: ToolPaths = {},
  cacheRoot = join(homedir(), '.cache', 'svc'),
): string {
  const given = explicit[name];
  if (given) return given;
  let dirs: string[] = [];
  try {
    dirs = readdirSync(cacheRoot)
      .filter((d) => d.startsWith(`${name}-`) || d.startsWith('tools-'))
      .sort()
      .reverse();
  } catch {
    dirs = [];
  }
  for (const d of dirs) {
    for (const candidate of [join(cacheRoot, d, name), join(cacheRoot, d, 'bin', name)]) {
      if (existsSync(candidate)) return candidate;
    }
  }
  return name;
}
