/**
 * The client's configuration file, `~/.config/svc/config.yaml` (or `$XDG_CONFIG_HOME/svc/config.yaml`): named
 * contexts, each a server URL and an API key, and the current one. The file holds API keys, so it is written with
 * mode 0600 (its directory 0700), through a temporary file and a rename so it is never seen half-written.
 * `SVC_SERVER` / `SVC_API_KEY` and the `--server` / `--context` flags override it (for CI).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { CliError, EXIT } from './errors.ts';

/** One context: where the server is and the API key to present. */
export interface Context {
  server: string;
  'api-key'?: string;
}

/** The whole file. */
export interface ClientConfig {
  'current-context'?: string;
  contexts: Record<string, Context>;
}

/** The context name used when none is given. */
export const DEFAULT_CONTEXT = 'default';

/** The path of the configuration file for this environment. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_CONFIG_HOME'] || join(env['HOME'] || homedir(), '.config');
  return join(base, 'svc', 'config.yaml');
}

/** The configuration at `path`; an empty one when the file does not exist. CliError (usage) when it is malformed. */
export function readConfig(path: string): ClientConfig {
  if (!existsSync(path)) return { contexts: {} };
  let parsed: unknown;
  try {
    parsed = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`${path} is not valid YAML: ${(err as Error).message}`, EXIT.usage);
  }
  if (parsed === null || parsed === undefined) return { contexts: {} };
  const config = parsed as Partial<ClientConfig>;
  if (typeof config !== 'object' || (config.contexts !== undefined && typeof config.contexts !== 'object')) {
    throw new CliError(`${path} must hold a "contexts" mapping`, EXIT.usage);
  }
  return { ...config, contexts: config.contexts ?? {} };
}

/** Writes the configuration to `path` with mode 0600 (directory 0700), atomically. */
export function writeConfig(path: string, config: ClientConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, stringify(config), { mode: 0o600 });
  // The mode of an existing file survives a rename over it only for the new inode: set it explicitly.
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** Where a command sends its requests, and how it authenticates. */
export interface Target {
  server: string;
  apiKey: string | undefined;
  /** The context it came from (undefined when the environment or flags gave everything). */
  context: string | undefined;
}

/** Flags that choose the target. */
export interface TargetFlags {
  server?: string;
  context?: string;
}

/**
 * The target of a command: `--server` over `SVC_SERVER` over the context's server; `SVC_API_KEY` over the
 * context's key. The context is `--context`, else the file's current context. CliError when no server is known at
 * all (auth: not logged in) or a named context does not exist (usage).
 */
export function resolveTarget(config: ClientConfig, flags: TargetFlags, env: NodeJS.ProcessEnv): Target {
  const name = flags.context ?? config['current-context'];
  const context = name !== undefined ? config.contexts[name] : undefined;
  if (flags.context !== undefined && !context) {
    throw new CliError(`no context named "${flags.context}" (see svc context list)`, EXIT.usage);
  }
  const server = flags.server ?? env['SVC_SERVER'] ?? context?.server;
  if (!server) {
    throw new CliError('not logged in: run `svc login <server-url>`, or set SVC_SERVER and SVC_API_KEY', EXIT.auth);
  }
  return {
    server: normalizeServer(server),
    apiKey: env['SVC_API_KEY'] || context?.['api-key'],
    context: context ? name : undefined,
  };
}

/** `server` as a base URL without a trailing slash; CliError (usage) unless it is an http(s) URL. */
export function normalizeServer(server: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new CliError(`server "${server}" is not a URL (e.g. https://svc.example.com)`, EXIT.usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`server "${server}" must be an http:// or https:// URL`, EXIT.usage);
  }
  return url.toString().replace(/\/+$/, '');
}
