/**
 * `svc cluster …`: registered clusters over the REST API (contract §4.3; docs/compatibility.md "Clusters"): list
 * (probed live unless --shallow), get, register, test, update, remove, namespaces, shell. Kubeconfigs are read from
 * a file (or `-` for stdin) and sent to the server, which checks and seals them; nothing is kept here.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Cluster, ClusterShell } from '../../client/answers.ts';
import { parseDuration } from '../../core/duration.ts';
import { CliError, EXIT } from './errors.ts';
import { type Column, render, renderFields } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

const CLUSTER_COLUMNS: Column<Cluster>[] = [
  { header: 'name', value: (c) => c.name },
  { header: 'status', value: (c) => c.status },
  { header: 'version', value: (c) => c.version },
  { header: 'nodes', value: (c) => c.node_count },
  { header: 'cpu', value: (c) => `${c.cpu_usage}%` },
  { header: 'memory', value: (c) => `${c.memory_usage}%` },
  { header: 'deployments', value: (c) => `${c.healthy_deployments}/${c.deployment_count}` },
  { header: 'server', value: (c) => c.server_url, wide: true },
  { header: 'namespaces', value: (c) => c.namespace || '(all)', wide: true },
  { header: 'labels', value: (c) => labelsText(c.labels), wide: true },
  { header: 'provider', value: (c) => c.provider, wide: true },
  { header: 'last seen', value: (c) => c.last_seen ?? '', wide: true },
  { header: 'message', value: (c) => c.status_message, wide: true },
];

/** A kubeconfig file's text (`-` = stdin); CliError (usage) when it cannot be read. */
function readKubeconfig(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read kubeconfig ${path}: ${(err as Error).message}`, EXIT.usage);
  }
}

const namespacesOf = (list: string) =>
  list
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);

/** `--labels env=prod,region=eu` as an object (`""` = none); CliError (usage) for a pair without `=`. */
export function labelsOf(list: string): Record<string, string> {
  const pairs = list
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  return Object.fromEntries(
    pairs.map((p) => {
      const at = p.indexOf('=');
      if (at <= 0) throw new CliError(`--labels: "${p}" is not key=value`, EXIT.usage);
      return [p.slice(0, at), p.slice(at + 1)];
    }),
  );
}

const labelsText = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

function clusterFields(c: Cluster): string {
  return renderFields([
    ['Name', c.name],
    ['Server', c.server_url],
    ['Credentials', c.credentials],
    ['Namespaces', c.namespace || '(cluster-wide)'],
    ['Labels', labelsText(c.labels) || 'none'],
    ['Status', c.status_message ? `${c.status}: ${c.status_message}` : c.status],
    ['Version', c.version],
    ['Provider', c.provider],
    ['Region', c.region],
    ['Nodes', c.node_count],
    ['CPU', `${c.cpu_usage}%`],
    ['Memory', `${c.memory_usage}%`],
    ['Deployments', `${c.healthy_deployments}/${c.deployment_count} healthy`],
    ['Last seen', c.last_seen ?? 'never'],
  ]);
}

/** How to attach to a shell: its answer, then the lines a user runs (the token goes to the environment). */
function shellText(s: ClusterShell): string {
  const ca = s.attach?.certificate_authority_data;
  return [
    `shell ${s.pod} on ${s.cluster} (${s.power}), expires ${s.expires_at}`,
    'attach with:',
    `  export SVC_SHELL_TOKEN='${s.attach?.token}'`,
    ...(ca ? [`  echo '${ca}' | base64 -d > ca.crt`] : []),
    `  ${s.attach?.command}`,
    '',
  ].join('\n');
}

/** Registers `svc cluster …` on `program`. */
export function registerClusterCommands(program: Command): void {
  const cluster = program.command('cluster').description('registered clusters');
  cluster
    .command('list')
    .alias('ls')
    .description('clusters you may read, probed live (status, version, nodes, use)')
    .option('--shallow', 'stored data only, no probe')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const shallow = cmd.opts<{ shallow?: boolean }>().shallow === true;
        const answer = await api.GET('/api/v1/clusters', { params: { query: shallow ? { shallow: '1' } : {} } });
        print(
          render(answer, format, (a) => ({ rows: a.clusters ?? [], columns: CLUSTER_COLUMNS, empty: 'No clusters.' })),
        );
      }),
    );
  cluster
    .command('get <name>')
    .description('one cluster, probed live')
    .option('--shallow', 'stored data only, no probe')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const shallow = cmd.opts<{ shallow?: boolean }>().shallow === true;
        const answer = await api.GET('/api/v1/clusters/{name}', {
          params: { path: { name: argsOf(cmd)[0] ?? '' }, query: shallow ? { shallow: '1' } : {} },
        });
        print(render(answer, format, (a) => clusterFields(a.cluster)));
      }),
    );
  cluster
    .command('register <name>')
    .description('register a cluster (its kubeconfig must carry its credentials inline)')
    .requiredOption('--server-url <url>', 'https:// URL of its API server (--server is svc’s own)')
    .option('--kubeconfig <file>', 'kubeconfig file (- for stdin); omitted: the server’s own in-cluster credentials')
    .option('--namespaces <list>', 'namespace allowlist, comma-separated (default: cluster-wide)')
    .option('--labels <list>', 'labels AppSets select clusters by, key=value comma-separated')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ serverUrl: string; kubeconfig?: string; namespaces?: string; labels?: string }>();
        const answer = await api.POST('/api/v1/clusters', {
          body: {
            name: argsOf(cmd)[0] as string,
            server_url: opts.serverUrl,
            ...(opts.kubeconfig ? { kubeconfig: readKubeconfig(opts.kubeconfig) } : {}),
            ...(opts.namespaces !== undefined ? { namespaces: namespacesOf(opts.namespaces) } : {}),
            ...(opts.labels !== undefined ? { labels: labelsOf(opts.labels) } : {}),
          },
        });
        print(render(answer, format, (a) => `cluster ${a.cluster.name} registered (status ${a.cluster.status})`));
      }),
    );
  cluster
    .command('test')
    .description('try a registration without storing it: exit 0 when svc can connect, 1 otherwise')
    .option('--server-url <url>', 'https:// URL of its API server (default: the kubeconfig’s server)')
    .option('--kubeconfig <file>', 'kubeconfig file (- for stdin); omitted: the server’s own in-cluster credentials')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ serverUrl?: string; kubeconfig?: string }>();
        const answer = await api.POST('/api/v1/clusters/test', {
          body: {
            ...(opts.serverUrl ? { server_url: opts.serverUrl } : {}),
            ...(opts.kubeconfig ? { kubeconfig: readKubeconfig(opts.kubeconfig) } : {}),
          },
        });
        print(
          render(answer, format, (a) =>
            a.ok
              ? `ok: ${a.version}${a.namespaces ? `, ${a.namespaces.length} namespaces` : ' (namespaces not readable)'}`
              : `failed: ${a.error}`,
          ),
        );
        if (!answer.ok) process.exitCode = EXIT.failed;
      }),
    );
  registerClusterChangeCommands(cluster);
}

interface UpdateFlags {
  serverUrl?: string;
  kubeconfig?: string;
  inCluster?: boolean;
  namespaces?: string;
  labels?: string;
}

/** The PATCH body `svc cluster update` flags ask for. */
function updateBody(opts: UpdateFlags) {
  if (opts.kubeconfig && opts.inCluster)
    throw new CliError('--kubeconfig and --in-cluster exclude each other', EXIT.usage);
  return {
    ...(opts.serverUrl ? { server_url: opts.serverUrl } : {}),
    ...(opts.kubeconfig ? { kubeconfig: readKubeconfig(opts.kubeconfig) } : {}),
    ...(opts.inCluster ? { kubeconfig: null } : {}),
    ...(opts.namespaces !== undefined ? { namespaces: namespacesOf(opts.namespaces) } : {}),
    ...(opts.labels !== undefined ? { labels: labelsOf(opts.labels) } : {}),
  };
}

/** `svc cluster update|remove|namespaces|shell`. */
function registerClusterChangeCommands(cluster: Command): void {
  cluster
    .command('update <name>')
    .description('change the server URL, credentials, namespace allowlist or labels')
    .option('--server-url <url>', 'new https:// URL of its API server')
    .option('--kubeconfig <file>', 'new kubeconfig file (- for stdin)')
    .option('--in-cluster', 'use the server’s own in-cluster credentials instead of a kubeconfig')
    .option('--namespaces <list>', 'new allowlist, comma-separated ("" = cluster-wide)')
    .option('--labels <list>', 'new labels replacing all, key=value comma-separated ("" = none)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const body = updateBody(cmd.opts<UpdateFlags>());
        if (Object.keys(body).length === 0)
          throw new CliError('nothing to change: give at least one option', EXIT.usage);
        const name = argsOf(cmd)[0] ?? '';
        const answer = await api.PATCH('/api/v1/clusters/{name}', { params: { path: { name } }, body });
        print(render(answer, format, (a) => `cluster ${a.cluster.name} updated`));
      }),
    );
  cluster
    .command('remove <name>')
    .alias('rm')
    .description('remove a cluster (refused while Apps deploy to it)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const name = argsOf(cmd)[0] ?? '';
        const answer = await api.DELETE('/api/v1/clusters/{name}', { params: { path: { name } } });
        print(render(answer, format, () => `cluster ${name} removed`));
      }),
    );
  cluster
    .command('namespaces <name>')
    .description('its namespaces, live (within its allowlist)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const name = argsOf(cmd)[0] ?? '';
        const answer = await api.GET('/api/v1/clusters/{name}/namespaces', { params: { path: { name } } });
        print(
          render(answer, format, (a) => (a.namespaces?.length ? `${a.namespaces.join('\n')}\n` : 'No namespaces.')),
        );
      }),
    );
  cluster
    .command('shell <name>')
    .description('spawn a shell pod (view or admin, from your permissions) and print how to attach')
    .option('--ttl <duration>', 'how long it lives (1m to 8h)', '30m')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const ttl = parseDuration(cmd.opts<{ ttl: string }>().ttl);
        if (ttl === undefined || ttl < 60_000 || ttl > 8 * 3_600_000) {
          throw new CliError('--ttl must be a duration from 1m to 8h', EXIT.usage);
        }
        const name = argsOf(cmd)[0] ?? '';
        const answer = await api.POST('/api/v1/clusters/{name}/shell', {
          params: { path: { name } },
          body: { ttl_seconds: Math.round(ttl / 1000) },
        });
        print(render(answer, format, (a) => shellText(a.shell)));
      }),
    );
}
