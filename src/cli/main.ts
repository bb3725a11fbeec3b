/**
 * The `svc` executable: the long-running roles (`start`, `server`, `operator`). Client commands over the REST API
 * (`svc <noun> <verb>`) join here as they are built.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { OperatorFlags } from '../config.ts';
import { boot, stopOnSignals } from './boot.ts';
import { runOperator, runServer } from './roles.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

function withOperatorFlags(cmd: Command): Command {
  return cmd
    .option('--sync-period <duration>', 'resync period of every App', '60s')
    .option('--webhook-bind-address <addr>', 'push receiver address', ':8082')
    .option('--metrics-bind-address <addr>', 'Prometheus metrics address', ':8080')
    .option('--health-probe-bind-address <addr>', '/healthz and /readyz address', ':8081')
    .option('--leader-elect <bool>', 'elect a leader on a Lease before reconciling', 'true')
    .option('--leader-election-namespace <ns>', 'namespace of the leader-election Lease', 'kube-system')
    .option('--watch-namespace <ns>', 'reconcile only the Apps of this namespace (default: every namespace)');
}

const program = new Command('svc')
  .description('svc: GitOps continuous delivery for Kubernetes')
  .version(pkg.version, '-v, --version');

withOperatorFlags(
  program
    .command('start')
    .description('run everything in one process: API, auth component and operator (SQLite under .svc/ by default)'),
).action(async (flags: OperatorFlags) => {
  const { config, logger } = boot(flags, 'start');
  const server = await runServer(config, logger);
  const operator = config.mgmtKubeconfig ? await runOperator(config, logger, server.channel) : undefined;
  if (!operator) logger.warn('SVC_MGMT_KUBECONFIG is unset: the operator is not running and /api/v1/apps answers 503');
  stopOnSignals(logger, async () => {
    await operator?.stop();
    await server.stop();
  });
});

program
  .command('server')
  .description('run the REST API and the auth component (stateless; scale out behind PostgreSQL)')
  .action(async () => {
    const { config, logger } = boot({}, 'server');
    const server = await runServer(config, logger);
    stopOnSignals(logger, () => server.stop());
  });

withOperatorFlags(program.command('operator').description('run the controller that reconciles App resources')).action(
  async (flags: OperatorFlags) => {
    const { config, logger } = boot(flags, 'operator');
    if (!config.mgmtKubeconfig) {
      console.error('svc operator: SVC_MGMT_KUBECONFIG must name the kubeconfig of the management cluster');
      process.exit(2);
    }
    const operator = await runOperator(config, logger);
    stopOnSignals(logger, () => operator.stop());
  },
);

await program.parseAsync(process.argv);
