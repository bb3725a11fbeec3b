/**
 * How client commands name an App: `<name>` (names are unique in an org, so its namespace is found through the
 * list), `<namespace>/<name>`, or `<name> -n <namespace>`.
 */
import type { Command } from 'commander';
import type { ApiClient } from './api.ts';
import type { AppObject } from './app-views.ts';
import { CliError, EXIT } from './errors.ts';
import type { AppRef } from './follow.ts';

/** Finds the App `arg` names (`name` or `namespace/name`, or `name` with `-n`). */
export async function resolveApp(api: ApiClient, arg: string, namespace: string | undefined): Promise<AppRef> {
  const slash = arg.indexOf('/');
  if (slash > 0) return { namespace: arg.slice(0, slash), name: arg.slice(slash + 1) };
  if (namespace) return { namespace, name: arg };
  const { apps } = await api.request<{ apps: AppObject[] }>('GET', '/apps');
  const found = apps.find((a) => a.name === arg);
  if (!found) throw new CliError(`app ${arg} not found`, EXIT.notFound);
  return { namespace: found.namespace, name: found.name };
}

/** Adds `-n, --namespace` to a command naming one App. */
export function appCommand(parent: Command, usage: string, description: string): Command {
  return parent
    .command(usage)
    .description(description)
    .option('-n, --namespace <namespace>', 'destination namespace of the App (found from the name when omitted)');
}
