/**
 * `svc app …`: the App routes of the REST API that change things (contract §4.2) — create, delete, clone, adopt and
 * the operations, which `--wait` follows live — plus the read commands of ./app-read-commands.ts.
 */
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { parse } from 'yaml';
import type { AppCreate, OperationAnswer, RequestBody } from '../../client/answers.ts';
import type { ApiClient } from './api.ts';
import { registerAppLiveCommands } from './app-live-commands.ts';
import { registerAppReadCommands } from './app-read-commands.ts';
import { APP_PATH, type AppRef, appCommand, resolveApp } from './app-ref.ts';
import { CliError, EXIT } from './errors.ts';
import { followOperation } from './follow.ts';
import { render } from './output.ts';
import { progressOn } from './progress.ts';
import { argsOf, durationOption, print, run, runtimeOf } from './runtime.ts';

/** Adds `--wait` and `--timeout` to an operation command. */
function waitable(cmd: Command): Command {
  return cmd
    .option('-w, --wait', 'follow the operation until it ends; exit 1 unless Synced and Healthy')
    .option('--timeout <duration>', 'how long --wait waits', '5m');
}

/** Sends one operation request on `ref` (an operation route), given the App whose status shows its outcome. */
type Send = (api: ApiClient, ref: AppRef, followed: AppRef) => Promise<OperationAnswer>;

/**
 * Requests an operation on the App the command names and, with `--wait`, follows it live until it ends: exit 0 when
 * Synced and Healthy, 1 when it failed, is held, or the App is Degraded (or on timeout).
 */
async function operate(cmd: Command, send: Send, follow?: (api: ApiClient) => Promise<AppRef>): Promise<void> {
  const { api, format } = runtimeOf(cmd);
  const opts = cmd.opts<{ namespace?: string; wait?: boolean; timeout: string }>();
  const timeoutMs = durationOption('--timeout', opts.timeout);
  const ref = await resolveApp(api, argsOf(cmd)[0] as string, opts.namespace);
  const followed = follow ? await follow(api) : ref;
  const answer = await send(api, ref, followed);
  const operationId = answer.operation_id ?? '';
  const requested = `${answer.message} for ${followed.namespace}/${followed.name} (operation ${operationId})`;
  if (!opts.wait) {
    print(render(answer, format, () => requested));
    return;
  }
  const progress = await progressOn();
  progress.note(requested);
  const { view, outcome } = await followOperation(api, followed, operationId, { timeoutMs, progress });
  progress.done(outcome.ok, `${followed.name}: ${outcome.summary}`);
  print(render({ ...answer, status: view }, format, () => `${followed.name}: ${outcome.summary}`));
  if (!outcome.ok) process.exitCode = EXIT.failed;
}

type Flags = Record<string, string | boolean | undefined>;

/** Commander's collector of a repeatable option. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The create payload from `-f` (YAML or JSON; `-` reads stdin) and the flags, flags winning. */
function createPayload(name: string | undefined, opts: Flags): AppCreate {
  const payload = typeof opts['file'] === 'string' ? payloadFile(opts['file']) : {};
  if (name) payload['name'] = name;
  if (opts['namespace']) payload['namespace'] = opts['namespace'];
  if (opts['cluster']) payload['cluster'] = opts['cluster'];
  const source = sourceOf(opts);
  if (source) payload['source'] = source;
  const policy = policyOf(payload['sync_policy'], opts);
  if (Object.keys(policy).length > 0) payload['sync_policy'] = policy;
  const dependsOn = (opts['dependsOn'] as string[] | undefined) ?? [];
  if (dependsOn.length > 0) payload['depends_on'] = dependsOn.map((name) => ({ name }));
  if (!payload['name'] || !payload['namespace'] || !payload['source']) {
    throw new CliError(
      'create needs a name, -n <namespace> and a source (--repo, --helm-chart with --repo, or --image), or -f <file>',
      EXIT.usage,
    );
  }
  // The server validates the rest (its answer says what is wrong).
  return payload as AppCreate;
}

/** The payload in `file` (YAML or JSON; `-` reads stdin): one object. */
function payloadFile(file: string): Record<string, unknown> {
  const parsed: unknown = parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CliError(`${file} must hold one create payload (an object)`, EXIT.usage);
  }
  return parsed as Record<string, unknown>;
}

/**
 * The source the flags name: `--helm-chart` with `--repo` (HelmChart), `--repo` (Git) or `--image` (Image);
 * undefined without any.
 */
function sourceOf(opts: Flags): Record<string, unknown> | undefined {
  if (opts['helmChart']) return { type: 'HelmChart', helmChart: helmChartOf(opts) };
  if (opts['repo']) {
    return {
      type: 'Git',
      git: {
        repoURL: opts['repo'],
        ...(opts['path'] ? { path: opts['path'] } : {}),
        ...(opts['branch'] ? { branch: opts['branch'] } : {}),
        ...(opts['repository'] ? { repositoryRef: opts['repository'] } : {}),
      },
    };
  }
  if (!opts['image']) return undefined;
  const [repository, tag] = String(opts['image']).split(/:(?=[^/:]+$)/);
  return {
    type: 'Image',
    image: {
      repository,
      tag: tag ?? 'latest',
      ...(opts['registry'] ? { registryRef: opts['registry'] } : {}),
      ...(opts['follow'] ? { tagPolicy: 'Follow' } : {}),
    },
  };
}

/**
 * The HelmChart block of `--helm-chart <chart> --repo <url> [--chart-version <range>] [--values <file>]
 * [--values-file <path in chart>]… [--release <name>] [--repository <name>]`.
 */
function helmChartOf(opts: Record<string, unknown>): Record<string, unknown> {
  if (!opts['repo'])
    throw new CliError('--helm-chart needs --repo <chart repository URL> (https:// or oci://)', EXIT.usage);
  let values: unknown;
  if (typeof opts['values'] === 'string') {
    values = parse(readFileSync(opts['values'] === '-' ? 0 : opts['values'], 'utf8'));
    if (!values || typeof values !== 'object' || Array.isArray(values)) {
      throw new CliError(`${opts['values']} must hold chart values (a YAML mapping)`, EXIT.usage);
    }
  }
  const files = opts['valuesFile'] as string[] | undefined;
  return {
    repoURL: opts['repo'],
    chart: opts['helmChart'],
    ...(opts['chartVersion'] ? { version: opts['chartVersion'] } : {}),
    ...(values ? { values } : {}),
    ...(files && files.length > 0 ? { valuesFiles: files } : {}),
    ...(opts['release'] ? { releaseName: opts['release'] } : {}),
    ...(opts['repository'] ? { repositoryRef: opts['repository'] } : {}),
  };
}

/** The file's sync policy with the flags' switches turned on (and `--auto-rollback <duration>`'s delay). */
function policyOf(fromFile: unknown, opts: Flags): Record<string, unknown> {
  const policy: Record<string, unknown> = { ...(fromFile as Record<string, unknown> | undefined) };
  const flags = { autoSync: 'automated', prune: 'prune', selfHeal: 'selfHeal', requireApproval: 'requiresApproval' };
  for (const [flag, field] of Object.entries(flags)) if (opts[flag]) policy[field] = true;
  if (typeof opts['autoRollback'] === 'string') policy['autoRollback'] = { onDegradedFor: opts['autoRollback'] };
  return policy;
}

/** Registers `svc app` and its subcommands on `program`. */
export function registerAppCommands(program: Command): void {
  const app = program.command('app').description('deploy and operate Apps');
  registerAppReadCommands(app);
  registerAppLiveCommands(app);
  registerCreateCommands(app);
  registerOperationCommands(app);
  registerCopyCommands(app);
}

/** `svc app create` and `svc app delete`. */
function registerCreateCommands(app: Command): void {
  app
    .command('create [name]')
    .description('create an App from flags or from a create payload file (-f)')
    .option('-n, --namespace <namespace>', 'destination namespace')
    .option('--cluster <cluster>', 'registered cluster (default: the management cluster)')
    .option('--repo <url>', 'Git repository URL (source type Git), or the chart repository with --helm-chart')
    .option('--path <path>', 'directory of the manifests in the repository')
    .option('--branch <branch>', 'branch to deploy (default main)')
    .option('--helm-chart <chart>', 'chart name in the --repo chart repository (source type HelmChart)')
    .option('--chart-version <range>', 'HelmChart: exact version or semver range (1.2.x, ^1.2.0); default the newest')
    .option('--values <file>', 'HelmChart: values as a YAML file (- for stdin)')
    .option('--values-file <path>', 'HelmChart: a values file inside the chart (repeatable, in order)', collect, [])
    .option('--release <name>', 'HelmChart: release name (default the App name)')
    .option('--repository <name>', 'registered repository whose credentials reach --repo (default: the covering one)')
    .option('--image <repository:tag>', 'container image (source type Image)')
    .option('--registry <name>', 'registered registry of the image; the repository is then relative to its host')
    .option('--follow', 'image Apps: redeploy when the tag moves to a new digest (tagPolicy Follow)')
    .option('--auto-sync', 'sync automatically when the source or spec changes')
    .option('--prune', 'delete objects that leave the rendered set')
    .option('--self-heal', 'declare self-heal')
    .option('--require-approval', 'hold syncs until approved')
    .option(
      '--auto-rollback <duration>',
      'roll back to the last healthy revision (and hold it) when a new revision stays Degraded this long, e.g. 5m',
    )
    .option('--depends-on <app>', 'an App of the org this one waits for (repeatable)', collect, [])
    .option('-f, --file <file>', 'create payload as YAML or JSON (- for stdin)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const created = await api.POST('/api/v1/apps', { body: createPayload(argsOf(cmd)[0], cmd.opts()) });
        print(render(created, format, () => `app ${created.namespace}/${created.name} created`));
      }),
    );

  appCommand(app, 'delete <app>', 'delete an App (the operator stops managing what it applied)')
    .alias('rm')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
        const answer = await api.DELETE(APP_PATH, { params: { path: ref } });
        print(render(answer, format, () => `app ${ref.namespace}/${ref.name} deleted`));
      }),
    );
}

/** The operations (`--wait` follows them) and freeze/unfreeze. */
function registerOperationCommands(app: Command): void {
  waitable(appCommand(app, 'sync <app>', 'sync the App to its source head'))
    .option('--override-windows', 'run once even though a delivery window blocks syncs (deployment:manage; audited)')
    .action(
      run((cmd) => {
        const override = cmd.opts<{ overrideWindows?: boolean }>().overrideWindows === true;
        const query = override ? { override_windows: 'true' as const } : {};
        return operate(cmd, (api, path) => api.POST(`${APP_PATH}/sync`, { params: { path, query }, body: {} }));
      }),
    );
  waitable(appCommand(app, 'deploy <app>', 're-resolve the source live and apply it'))
    .option('--tag <tag>', 'new image tag (image Apps)')
    .action(
      run((cmd) => {
        const { tag } = cmd.opts<{ tag?: string }>();
        return operate(cmd, (api, path) =>
          api.POST(`${APP_PATH}/deploy`, { params: { path }, body: tag ? { tag } : {} }),
        );
      }),
    );
  waitable(appCommand(app, 'rollback <app> <revision>', 'apply a revision from the history'))
    .option('--hold', 'stay at this revision (automated sync and pushes do not move it) until `svc app release`')
    .option('--reason <text>', 'why (shown with the hold)')
    .action(
      run((cmd) => {
        const revision = argsOf(cmd)[1] as string;
        const { hold, reason } = cmd.opts<{ hold?: boolean; reason?: string }>();
        const body = { revision, ...(hold ? { hold: true } : {}), ...(reason !== undefined ? { reason } : {}) };
        return operate(cmd, (api, path) => api.POST(`${APP_PATH}/rollback`, { params: { path }, body }));
      }),
    );
  appCommand(app, 'release <app>', 'end a held rollback: the App moves to the head again').action(
    run(async (cmd) => {
      const { api, format } = runtimeOf(cmd);
      const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
      const answer = await api.POST(`${APP_PATH}/release`, { params: { path: ref }, body: {} });
      print(render(answer, format, () => `app ${ref.name} released from ${answer.revision}`));
    }),
  );
  waitable(appCommand(app, 'restart <app>', 'restart every workload of the App')).action(
    run((cmd) => operate(cmd, (api, path) => api.POST(`${APP_PATH}/restart`, { params: { path }, body: {} }))),
  );
  // Not waitable: what follows is the terminated operation failing, which `svc app status` shows.
  appCommand(
    app,
    'terminate <app>',
    'end the requested or running operation (it ends Failed, reason Terminated)',
  ).action(
    run((cmd) => operate(cmd, (api, path) => api.POST(`${APP_PATH}/terminate`, { params: { path }, body: {} }))),
  );
  waitable(appCommand(app, 'approve <app>', 'release a sync held for approval')).action(
    run((cmd) => operate(cmd, (api, path) => api.POST(`${APP_PATH}/approve`, { params: { path }, body: {} }))),
  );
  waitable(appCommand(app, 'scale <app> <replicas>', 'set the replicas of an image App and sync')).action(
    run((cmd) => {
      const replicas = Number(argsOf(cmd)[1]);
      if (!Number.isInteger(replicas) || replicas < 0) {
        throw new CliError('replicas must be a whole number ≥ 0', EXIT.usage);
      }
      return operate(cmd, (api, path) => api.POST(`${APP_PATH}/scale`, { params: { path }, body: { replicas } }));
    }),
  );
  waitable(appCommand(app, 'promote <app>', "copy this image App's applied digest onto another App"))
    .addOption(new Option('--to <target>', 'the App to promote to').makeOptionMandatory())
    .action(
      run((cmd) =>
        operate(
          cmd,
          (api, path, target) =>
            api.POST(`${APP_PATH}/promote`, { params: { path, query: { to: target.name } }, body: {} }),
          (api) => resolveApp(api, cmd.opts<{ to: string }>().to, undefined),
        ),
      ),
    );

  for (const frozen of [true, false]) {
    const verb = frozen ? 'freeze' : 'unfreeze';
    appCommand(app, `${verb} <app>`, frozen ? 'hold every sync of the App' : 'allow syncs again').action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
        const answer = await api.POST(`${APP_PATH}/${verb}`, { params: { path: ref }, body: {} });
        print(render(answer, format, () => `app ${ref.name} ${frozen ? 'frozen' : 'unfrozen'}`));
      }),
    );
  }
}

/** `svc app clone` and `svc app adopt`. */
function registerCopyCommands(app: Command): void {
  appCommand(app, 'clone <app> <new-name>', "copy an App's source, policy and destination onto a new App")
    .option('--to-namespace <namespace>', 'destination namespace of the copy (default: the same)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const [arg, name] = argsOf(cmd) as [string, string];
        const opts = cmd.opts<{ namespace?: string; toNamespace?: string }>();
        const ref = await resolveApp(api, arg, opts.namespace);
        const created = await api.POST(`${APP_PATH}/clone`, {
          params: { path: ref },
          body: { name, ...(opts.toNamespace ? { namespace: opts.toNamespace } : {}) },
        });
        print(render(created, format, () => `app ${created.namespace}/${created.name} created from ${ref.name}`));
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
        const created = await api.POST('/api/v1/apps/adopt', {
          body: {
            // The server names the kinds it takes (400, exit 2, otherwise).
            kind: kind as RequestBody<'/api/v1/apps/adopt', 'post'>['kind'],
            name,
            namespace: opts.namespace,
            ...(opts.cluster ? { cluster: opts.cluster } : {}),
          },
        });
        print(render(created, format, () => `app ${created.namespace}/${created.name} adopted ${kind}/${name}`));
      }),
    );
}
