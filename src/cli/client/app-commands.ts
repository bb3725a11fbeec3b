/**
 * `svc app …`: the App routes of the REST API (contract §4.2) as commands. An App is named `<name>` (its namespace
 * found through the list, names being unique in an org), `<namespace>/<name>`, or `<name> -n <namespace>`.
 */
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { parse } from 'yaml';
import type { ApiClient } from './api.ts';
import { type AppObject, appDetails, appTable } from './app-views.ts';
import { CliError, EXIT } from './errors.ts';
import { type AppRef, appPath, followOperation } from './follow.ts';
import { type StatusView, shortRevision } from './outcome.ts';
import { render, renderFields } from './output.ts';
import { progressOn } from './progress.ts';
import { argsOf, durationOption, print, run, runtimeOf } from './runtime.ts';

/** The answer of the operation routes. */
interface OperationAnswer {
  message: string;
  operation_id: string;
  [field: string]: unknown;
}

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
function appCommand(parent: Command, usage: string, description: string): Command {
  return parent
    .command(usage)
    .description(description)
    .option('-n, --namespace <namespace>', 'destination namespace of the App (found from the name when omitted)');
}

/** Adds `--wait` and `--timeout` to an operation command. */
function waitable(cmd: Command): Command {
  return cmd
    .option('-w, --wait', 'follow the operation until it ends; exit 1 unless Synced and Healthy')
    .option('--timeout <duration>', 'how long --wait waits', '5m');
}

/** What an operation command asks for besides the App: a body or query, and the App to follow (promote). */
interface OperationRequest {
  body?: Record<string, unknown>;
  /** The query, given the App followed. */
  query?: (followed: AppRef) => Record<string, string>;
  /** The App whose status shows the outcome (default: the one the command names). */
  follow?: (api: ApiClient) => Promise<AppRef>;
}

/**
 * Requests an operation on the App the command names and, with `--wait`, follows it live until it ends: exit 0 when
 * Synced and Healthy, 1 when it failed, is held, or the App is Degraded (or on timeout).
 */
async function operate(cmd: Command, suffix: string, request: OperationRequest = {}): Promise<void> {
  const { api, format } = runtimeOf(cmd);
  const opts = cmd.opts<{ namespace?: string; wait?: boolean; timeout: string }>();
  const timeoutMs = durationOption('--timeout', opts.timeout);
  const ref = await resolveApp(api, argsOf(cmd)[0] as string, opts.namespace);
  const followed = request.follow ? await request.follow(api) : ref;
  const answer = await api.request<OperationAnswer>('POST', appPath(ref, suffix), {
    ...(request.body ? { body: request.body } : {}),
    ...(request.query ? { query: request.query(followed) } : {}),
  });
  const requested = `${answer.message} for ${followed.namespace}/${followed.name} (operation ${answer.operation_id})`;
  if (!opts.wait) {
    print(render(answer, format, () => requested));
    return;
  }
  const progress = await progressOn();
  progress.note(requested);
  const { view, outcome } = await followOperation(api, followed, answer.operation_id, { timeoutMs, progress });
  progress.done(outcome.ok, `${followed.name}: ${outcome.summary}`);
  print(render({ ...answer, status: view }, format, () => `${followed.name}: ${outcome.summary}`));
  if (!outcome.ok) process.exitCode = EXIT.failed;
}

/** The create payload from `-f` (YAML or JSON; `-` reads stdin) and the flags, flags winning. */
function createPayload(name: string | undefined, opts: Record<string, string | boolean | undefined>) {
  let payload: Record<string, unknown> = {};
  if (typeof opts['file'] === 'string') {
    const text = readFileSync(opts['file'] === '-' ? 0 : opts['file'], 'utf8');
    const parsed: unknown = parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new CliError(`${opts['file']} must hold one create payload (an object)`, EXIT.usage);
    }
    payload = parsed as Record<string, unknown>;
  }
  if (name) payload['name'] = name;
  if (opts['namespace']) payload['namespace'] = opts['namespace'];
  if (opts['cluster']) payload['cluster'] = opts['cluster'];
  if (opts['repo']) {
    payload['source'] = {
      type: 'Git',
      git: {
        repoURL: opts['repo'],
        ...(opts['path'] ? { path: opts['path'] } : {}),
        ...(opts['branch'] ? { branch: opts['branch'] } : {}),
      },
    };
  } else if (opts['image']) {
    const [repository, tag] = String(opts['image']).split(/:(?=[^/:]+$)/);
    payload['source'] = { type: 'Image', image: { repository, tag: tag ?? 'latest' } };
  }
  const policy: Record<string, boolean> = { ...(payload['sync_policy'] as Record<string, boolean> | undefined) };
  if (opts['autoSync']) policy['automated'] = true;
  if (opts['prune']) policy['prune'] = true;
  if (opts['selfHeal']) policy['selfHeal'] = true;
  if (opts['requireApproval']) policy['requiresApproval'] = true;
  if (Object.keys(policy).length > 0) payload['sync_policy'] = policy;
  if (!payload['name'] || !payload['namespace'] || !payload['source']) {
    throw new CliError(
      'create needs a name, -n <namespace> and a source (--repo or --image), or -f <file>',
      EXIT.usage,
    );
  }
  return payload;
}

/** Registers `svc app` and its subcommands on `program`. */
export function registerAppCommands(program: Command): void {
  const app = program.command('app').description('deploy and operate Apps');

  app
    .command('list')
    .alias('ls')
    .description('the Apps you may read')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.request<{ apps: AppObject[] }>('GET', '/apps');
        print(render(answer, format, (a) => appTable(a.apps)));
      }),
    );

  appCommand(app, 'get <app>', 'one App: source, policy, status, resources, conditions').action(
    run(async (cmd) => {
      const { api, format } = runtimeOf(cmd);
      const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
      print(render(await api.request<AppObject>('GET', appPath(ref)), format, appDetails));
    }),
  );

  app
    .command('create [name]')
    .description('create an App from flags or from a create payload file (-f)')
    .option('-n, --namespace <namespace>', 'destination namespace')
    .option('--cluster <cluster>', 'registered cluster (default: the management cluster)')
    .option('--repo <url>', 'Git repository URL (source type Git)')
    .option('--path <path>', 'directory of the manifests in the repository')
    .option('--branch <branch>', 'branch to deploy (default main)')
    .option('--image <repository:tag>', 'container image (source type Image)')
    .option('--auto-sync', 'sync automatically when the source or spec changes')
    .option('--prune', 'delete objects that leave the rendered set')
    .option('--self-heal', 'declare self-heal')
    .option('--require-approval', 'hold syncs until approved')
    .option('-f, --file <file>', 'create payload as YAML or JSON (- for stdin)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const created = await api.request<AppObject>('POST', '/apps', {
          body: createPayload(argsOf(cmd)[0], cmd.opts()),
        });
        print(render(created, format, () => `app ${created.namespace}/${created.name} created`));
      }),
    );

  appCommand(app, 'delete <app>', 'delete an App (the operator stops managing what it applied)')
    .alias('rm')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
        const answer = await api.request('DELETE', appPath(ref));
        print(render(answer, format, () => `app ${ref.namespace}/${ref.name} deleted`));
      }),
    );

  waitable(appCommand(app, 'sync <app>', 'sync the App to its source head')).action(
    run((cmd) => operate(cmd, '/sync')),
  );
  waitable(appCommand(app, 'deploy <app>', 're-resolve the source live and apply it'))
    .option('--tag <tag>', 'new image tag (image Apps)')
    .action(run((cmd) => operate(cmd, '/deploy', cmd.opts().tag ? { body: { tag: cmd.opts().tag } } : {})));
  waitable(appCommand(app, 'rollback <app> <revision>', 'apply a revision from the history')).action(
    run((cmd) => operate(cmd, '/rollback', { body: { revision: argsOf(cmd)[1] } })),
  );
  waitable(appCommand(app, 'restart <app>', 'restart every workload of the App')).action(
    run((cmd) => operate(cmd, '/restart')),
  );
  waitable(appCommand(app, 'approve <app>', 'release a sync held for approval')).action(
    run((cmd) => operate(cmd, '/approve')),
  );
  waitable(appCommand(app, 'scale <app> <replicas>', 'set the replicas of an image App and sync')).action(
    run((cmd) => {
      const replicas = Number(argsOf(cmd)[1]);
      if (!Number.isInteger(replicas) || replicas < 0) {
        throw new CliError('replicas must be a whole number ≥ 0', EXIT.usage);
      }
      return operate(cmd, '/scale', { body: { replicas } });
    }),
  );
  waitable(appCommand(app, 'promote <app>', "copy this image App's applied digest onto another App"))
    .addOption(new Option('--to <target>', 'the App to promote to').makeOptionMandatory())
    .action(
      run((cmd) =>
        operate(cmd, '/promote', {
          follow: (api) => resolveApp(api, cmd.opts<{ to: string }>().to, undefined),
          query: (target) => ({ to: target.name }),
        }),
      ),
    );

  for (const frozen of [true, false]) {
    const verb = frozen ? 'freeze' : 'unfreeze';
    appCommand(app, `${verb} <app>`, frozen ? 'hold every sync of the App' : 'allow syncs again').action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
        const answer = await api.request('POST', appPath(ref, `/${verb}`));
        print(render(answer, format, () => `app ${ref.name} ${frozen ? 'frozen' : 'unfrozen'}`));
      }),
    );
  }

  appCommand(app, 'clone <app> <new-name>', "copy an App's source, policy and destination onto a new App")
    .option('--to-namespace <namespace>', 'destination namespace of the copy (default: the same)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [arg, name] = argsOf(cmd) as [string, string];
        const opts = cmd.opts<{ namespace?: string; toNamespace?: string }>();
        const ref = await resolveApp(api, arg, opts.namespace);
        const created = await api.request<AppObject>('POST', appPath(ref, '/clone'), {
          body: { name, ...(opts.toNamespace ? { namespace: opts.toNamespace } : {}) },
        });
        print(render(created, format, () => `app ${created.namespace}/${created.name} created from ${ref.name}`));
      }),
    );

  appCommand(app, 'status <app>', 'sync status, health, revision and last operation')
    .option('--wait <duration>', 'block (at most 120s) until Synced+Healthy, Degraded or Unknown')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ namespace?: string; wait?: string }>();
        const ref = await resolveApp(api, argsOf(cmd)[0] as string, opts.namespace);
        const view = await api.request<StatusView>('GET', appPath(ref, '/status'), { query: { wait: opts.wait } });
        print(
          render(view, format, () =>
            renderFields([
              ['Name', view.name],
              ['Sync', view.sync_status],
              ['Health', view.health_reason ? `${view.health} (${view.health_reason})` : view.health],
              ['Revision', view.revision],
              ['Observed', view.observed],
              ['Frozen', view.frozen ? 'yes' : 'no'],
              [
                'Operation',
                view.operationState
                  ? `${view.operationState.kind} ${view.operationState.phase} ${view.operationState.message ?? ''}`.trim()
                  : '',
              ],
              ['Pending', view.pending_operation ?? ''],
            ]),
          ),
        );
      }),
    );

  appCommand(app, 'history <app>', 'the revision the App runs and those it ran before (rollback targets)').action(
    run(async (cmd) => {
      const { api, format } = runtimeOf(cmd);
      const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
      const history = await api.request<{
        revision: string;
        previous_revisions: string[];
        last_sync_at: string | null;
      }>('GET', appPath(ref, '/history'));
      const rows = [
        ...(history.revision ? [{ revision: history.revision, current: 'yes' }] : []),
        ...history.previous_revisions.map((revision) => ({ revision, current: '' })),
      ];
      print(
        render(history, format, (_h, wide) => ({
          rows,
          columns: [
            {
              header: 'revision',
              value: (r: (typeof rows)[number]) => (wide ? r.revision : shortRevision(r.revision)),
            },
            { header: 'current', value: (r: (typeof rows)[number]) => r.current },
          ],
          empty: 'No revision applied yet.',
        })),
      );
    }),
  );

  appCommand(app, 'events <app>', 'Kubernetes events of the App and its workloads, newest first').action(
    run(async (cmd) => {
      const { api, format } = runtimeOf(cmd);
      const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
      type Event = { at: string; type: string; object: string; reason: string; message: string; source: string };
      const answer = await api.request<{ events: Event[] }>('GET', appPath(ref, '/events'));
      print(
        render(answer, format, (a) => ({
          rows: a.events,
          columns: [
            { header: 'at', value: (e: Event) => e.at },
            { header: 'type', value: (e: Event) => e.type },
            { header: 'reason', value: (e: Event) => e.reason },
            { header: 'object', value: (e: Event) => e.object },
            { header: 'source', value: (e: Event) => e.source, wide: true },
            { header: 'message', value: (e: Event) => e.message },
          ],
          empty: 'No events.',
        })),
      );
    }),
  );

  app
    .command('adoptable')
    .description('unmanaged Deployments and StatefulSets of a namespace that adopt could take over')
    .requiredOption('-n, --namespace <namespace>', 'namespace to look in')
    .option('--cluster <cluster>', 'registered cluster (default: the management cluster)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ namespace: string; cluster?: string }>();
        type Workload = {
          kind: string;
          name: string;
          replicas?: number;
          images?: string[];
          adoptable?: boolean;
          reason?: string;
        };
        const answer = await api.request<{ workloads: Workload[] }>('GET', '/apps/adoptable', {
          query: { namespace: opts.namespace, cluster: opts.cluster },
        });
        print(
          render(answer, format, (a) => ({
            rows: a.workloads,
            columns: [
              { header: 'kind', value: (w: Workload) => w.kind },
              { header: 'name', value: (w: Workload) => w.name },
              { header: 'replicas', value: (w: Workload) => w.replicas },
              { header: 'adoptable', value: (w: Workload) => (w.adoptable ? 'yes' : `no: ${w.reason ?? ''}`) },
              { header: 'images', value: (w: Workload) => (w.images ?? []).join(','), wide: true },
            ],
            empty: 'No unmanaged workloads.',
          })),
        );
      }),
    );

  app
    .command('adopt <kind> <name>')
    .description('take a Deployment or StatefulSet over as an image App')
    .requiredOption('-n, --namespace <namespace>', 'namespace of the workload')
    .option('--cluster <cluster>', 'registered cluster (default: the management cluster)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [kind, name] = argsOf(cmd) as [string, string];
        const opts = cmd.opts<{ namespace: string; cluster?: string }>();
        const created = await api.request<AppObject>('POST', '/apps/adopt', {
          body: { kind, name, namespace: opts.namespace, ...(opts.cluster ? { cluster: opts.cluster } : {}) },
        });
        print(render(created, format, () => `app ${created.namespace}/${created.name} adopted ${kind}/${name}`));
      }),
    );
}
