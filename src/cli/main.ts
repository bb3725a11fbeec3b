/**
 * The `svc` executable: the long-running roles (`start`, `server`, `operator`) and the client commands over the REST
 * API (`svc login`, `svc app sync …`; src/cli/client). A role's code (and the logger, config and boot it needs) is
 * imported only when that role starts, so a client command loads none of the server or operator stacks.
 * Exit codes: 0 ok, 1 failed operation, 2 usage, 3 auth, 4 not found; `svc app diff`: 1 differences, 5 failed
 * (src/cli/client/errors.ts, docs/cli.md).
 */
import { readFileSync } from 'node:fs';
import tab from '@bomb.sh/tab/commander';
import { Command, CommanderError, Option } from 'commander';
import type { OperatorFlags } from '../config.ts';
import { registerAccessCommands } from './client/access-commands.ts';
import { registerAppCommands } from './client/app-commands.ts';
import { registerAppSetCommands } from './client/appset-commands.ts';
import { registerCatalogCommands } from './client/catalog-commands.ts';
import { registerClusterCommands } from './client/cluster-commands.ts';
import { EXIT } from './client/errors.ts';
import { registerHealthCheckCommands } from './client/health-check-commands.ts';
import { registerImportCommands } from './client/import-commands.ts';
import { registerLoginCommands } from './client/login-commands.ts';
import { registerOpsCommands } from './client/ops-commands.ts';
import { OUTPUT_FORMATS } from './client/output.ts';
import { registerPreviewCommands } from './client/preview-commands.ts';
import { registerRegistryCommands } from './client/registry-commands.ts';
import { registerRepoCommands } from './client/repo-commands.ts';
import { registerStoreCommands } from './client/store-commands.ts';
import { registerTeamCommands } from './client/team-commands.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

function withOperatorFlags(cmd: Command): Command {
  return cmd
    .option('--sync-period <duration>', 'resync period of every App', '60s')
    .option('--webhook-bind-address <addr>', 'push receiver address', ':8082')
    .option('--metrics-bind-address <addr>', 'Prometheus metrics address', ':8080')
    .option('--health-probe-bind-address <addr>', '/healthz and /readyz address', ':8081')
    .option('--leader-elect <bool>', 'elect a leader on a Lease before reconciling', 'true')
    .option('--leader-election-namespace <ns>', 'namespace of the leader-election Lease', 'kube-system')
    .option('--watch-namespace <ns>', 'reconcile only the Apps of this namespace (default: every namespace)')
    .option(
      '--sharding <mode>',
      'share Apps between replicas: off, app or cluster (default: SVC_OPERATOR_SHARDING, else off)',
    );
}

const program = new Command('svc')
  .description('svc: GitOps continuous delivery for Kubernetes')
  .version(pkg.version, '-v, --version')
  // Usage errors exit 2 (not commander's 1, which means a failed operation here).
  .exitOverride()
  .option('--server <url>', 'svc server URL (default: SVC_SERVER, then the current context)')
  .option('--context <name>', 'saved context to use (see svc context list)')
  .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'));

withOperatorFlags(
  program
    .command('start')
    .description('run everything in one process: API, auth component and operator (SQLite under .svc/ by default)'),
).action(async (flags: OperatorFlags) => {
  const { boot, stopOnSignals } = await import('./boot.ts');
  const { runOperator, runServer } = await import('./roles.ts');
  const { config, logger, stopTracing } = await boot(flags, 'start');
  const server = await runServer(config, logger);
  const operator = config.mgmtKubeconfig ? await runOperator(config, logger, server.channel) : undefined;
  if (!operator) logger.warn('SVC_MGMT_KUBECONFIG is unset: the operator is not running and /api/v1/apps answers 503');
  stopOnSignals(logger, async () => {
    await operator?.stop();
    await server.stop();
    await stopTracing();
  });
});

program
  .command('server')
  .description('run the REST API and the auth component (stateless; scale out behind PostgreSQL)')
  .action(async () => {
    const { boot, stopOnSignals } = await import('./boot.ts');
    const { runServer } = await import('./roles.ts');
    const { config, logger, stopTracing } = await boot({}, 'server');
    const server = await runServer(config, logger);
    stopOnSignals(logger, () => server.stop().finally(stopTracing));
  });

withOperatorFlags(program.command('operator').description('run the controller that reconciles App resources')).action(
  async (flags: OperatorFlags) => {
    const { boot, stopOnSignals } = await import('./boot.ts');
    const { runOperator } = await import('./roles.ts');
    const { config, logger, stopTracing } = await boot(flags, 'operator');
    if (!config.mgmtKubeconfig) {
      console.error('svc operator: SVC_MGMT_KUBECONFIG must name the kubeconfig of the management cluster');
      process.exit(2);
    }
    const operator = await runOperator(config, logger);
    stopOnSignals(logger, () => operator.stop().finally(stopTracing));
  },
);

registerLoginCommands(program);
registerAppCommands(program);
registerAccessCommands(program);
registerTeamCommands(program);
registerOpsCommands(program);
registerClusterCommands(program);
registerStoreCommands(program);
registerRegistryCommands(program);
registerHealthCheckCommands(program);
registerCatalogCommands(program);
registerAppSetCommands(program);
registerRepoCommands(program);
registerImportCommands(program);
registerPreviewCommands(program);
// `svc completion bash|zsh|fish|powershell` prints a completion script; the shell then asks `svc complete -- …`.
tab(program, { completionCommandName: 'completion' });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (!(err instanceof CommanderError)) throw err;
  // Commander has printed the message (or the help / version) already.
  process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
}
