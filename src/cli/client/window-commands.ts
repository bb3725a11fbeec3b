/**
 * `svc windows get|set|clear [--cluster <name>]`: the org's delivery windows (GET/PUT /delivery-windows), or a
 * cluster's (GET/PUT /clusters/{name}/windows). `svc app windows` shows whether one App may sync now.
 */
import type { Command } from 'commander';
import type { DeliveryWindows } from '../../client/answers.ts';
import { CliError, EXIT } from './errors.ts';
import { render } from './output.ts';
import { print, run, runtimeOf } from './runtime.ts';

type Window = DeliveryWindows['windows'][number];

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** One `--allow` or `--deny` value: `name;cron schedule;duration[;time zone]`. */
export function windowOf(kind: 'allow' | 'deny', text: string): Window {
  const [name, schedule, duration, timeZone, ...rest] = text.split(';').map((p) => p.trim());
  if (!name || !schedule || !duration || rest.length > 0) {
    throw new CliError(`--${kind} "${text}": expected "name;cron schedule;duration[;time zone]"`, EXIT.usage);
  }
  return { name, kind, schedule, duration, ...(timeZone ? { timeZone } : {}) };
}

function windowsText(scope: string, windows: Window[]): string {
  if (windows.length === 0) return `no delivery windows (${scope}): syncs run at any time\n`;
  return windows
    .map((w) => `${w.kind.padEnd(5)} ${w.name}: ${w.schedule} for ${w.duration} (${w.timeZone ?? 'UTC'})\n`)
    .join('');
}

/** Registers `svc windows` on `program`. */
export function registerWindowCommands(program: Command): void {
  const cmd = program
    .command('windows')
    .description('delivery windows of the org (or of a cluster, with --cluster): when syncs may run');
  const scoped = (c: Command) => {
    const cluster = c.opts<{ cluster?: string }>().cluster;
    return { cluster, scope: cluster ? `cluster ${cluster}` : 'org' };
  };
  cmd
    .command('get')
    .description('show the delivery windows')
    .option('--cluster <name>', "a cluster's windows instead of the org's")
    .action(
      run(async (c) => {
        const { api, format } = runtimeOf(c);
        const { cluster, scope } = scoped(c);
        const answer = cluster
          ? await api.GET('/api/v1/clusters/{name}/windows', { params: { path: { name: cluster } } })
          : await api.GET('/api/v1/delivery-windows');
        print(render(answer, format, (a) => windowsText(scope, a.windows)));
      }),
    );
  cmd
    .command('set')
    .description('replace the delivery windows (org:manage; cluster:manage with --cluster)')
    .option('--cluster <name>', "a cluster's windows instead of the org's")
    .option('--allow <window>', 'an allow window "name;cron;duration[;tz]" (repeatable)', collect, [])
    .option('--deny <window>', 'a deny window "name;cron;duration[;tz]" (repeatable)', collect, [])
    .action(
      run(async (c) => {
        const { api, format } = runtimeOf(c);
        const { cluster, scope } = scoped(c);
        const opts = c.opts<{ allow: string[]; deny: string[] }>();
        const windows = [...opts.allow.map((t) => windowOf('allow', t)), ...opts.deny.map((t) => windowOf('deny', t))];
        const body = { windows };
        const answer = cluster
          ? await api.PUT('/api/v1/clusters/{name}/windows', { params: { path: { name: cluster } }, body })
          : await api.PUT('/api/v1/delivery-windows', { body });
        print(render(answer, format, (a) => windowsText(scope, a.windows)));
      }),
    );
  cmd
    .command('clear')
    .description('remove every delivery window (org:manage; cluster:manage with --cluster)')
    .option('--cluster <name>', "a cluster's windows instead of the org's")
    .action(
      run(async (c) => {
        const { api, format } = runtimeOf(c);
        const { cluster, scope } = scoped(c);
        const body = { windows: [] };
        const answer = cluster
          ? await api.PUT('/api/v1/clusters/{name}/windows', { params: { path: { name: cluster } }, body })
          : await api.PUT('/api/v1/delivery-windows', { body });
        print(render(answer, format, (a) => windowsText(scope, a.windows)));
      }),
    );
}
