/**
 * How client commands name an App: `<name>` (names are unique in an org, so its namespace is found through the
 * list), `<namespace>/<name>`, or `<name> -n <namespace>`.
 */
import type { Command } from 'commander';
import type { ApiClient } from './api.ts';
import { CliError, EXIT } from './errors.ts';

/** An App by destination namespace and name. */
export interface AppRef {
  namespace: string;
  name: string;
}

/** The API path of one App; its routes are this path and a suffix (`${APP_PATH}/status`). */
export const APP_PATH = '/api/v1/apps/{namespace}/{name}';

/** Finds the App `arg` names (`name` or `namespace/name`, or `name` with `-n`). */
export async function resolveApp(api: ApiClient, arg: string, namespace: string | undefined): Promise<AppRef> {
  const slash = arg.indexOf('/');
  if (slash > 0) return { namespace: arg.slice(0, slash), name: arg.slice(slash + 1) };
  if (namespace) return { namespace, name: arg };
  const { apps = [] } = await api.GET('/api/v1/apps');
  const found = apps.find((a) => a.name === arg);
  if (!found?.namespace) throw new CliError(`app ${arg} not found`, EXIT.notFound);
  return { namespace: found.namespace, name: arg };
}

/** Adds `-n, --namespace` to a command naming one App. */
export function appCommand(parent: Command, usage: string, description: string): Command {
  return parent
    .command(usage)
    .description(description)
    .option('-n, --namespace <namespace>', 'destination namespace of the App (found from the name when omitted)');
}
