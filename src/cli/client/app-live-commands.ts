/**
 * `svc app diff|resources|logs`: the App routes that read its destination live (docs/api.md "diff, resources and
 * logs"). `diff` exits like `kubectl diff` (0 no differences, 1 differences) so scripts can gate on it; `logs`
 * streams one of the App's Pods until the server ends it or Ctrl-C.
 */
import { styleText } from 'node:util';
import type { Command } from 'commander';
import type { AppDiff, TreeNode } from '../../client/answers.ts';
import { APP_PATH, appCommand, resolveApp } from './app-ref.ts';
import { CliError, EXIT } from './errors.ts';
import { type OutputFormat, render } from './output.ts';
import { argsOf, durationOption, print, run, runtimeOf } from './runtime.ts';

/** Whether the diff shows any object a sync would create, change or delete. */
function hasDifferences(summary: AppDiff['summary']): boolean {
  return (summary?.changed ?? 0) + (summary?.missing ?? 0) + (summary?.extra ?? 0) > 0;
}

/**
 * A unified diff coloured for `stream`: headers bold, hunks cyan, removals red, additions green. `styleText` leaves
 * the text plain when the stream is not a colour terminal (a pipe, a file, NO_COLOR, TERM=dumb).
 */
function colourDiff(unified: string, stream: NodeJS.WriteStream = process.stdout): string {
  const colour = (format: Parameters<typeof styleText>[0], line: string) => styleText(format, line, { stream });
  return unified
    .split('\n')
    .map((line) => {
      if (line.startsWith('---') || line.startsWith('+++')) return colour('bold', line);
      if (line.startsWith('@@')) return colour('cyan', line);
      if (line.startsWith('-')) return colour('red', line);
      if (line.startsWith('+')) return colour('green', line);
      return line;
    })
    .join('\n');
}

/** The nodes in tree order (each after its parent), each with its depth. */
function treeOrder(nodes: TreeNode[]): { node: TreeNode; depth: number }[] {
  const children = new Map<string | null, TreeNode[]>();
  const ids = new Set(nodes.map((n) => n.id));
  for (const n of nodes) {
    const parent = n.parent && ids.has(n.parent) ? n.parent : null;
    children.set(parent, [...(children.get(parent) ?? []), n]);
  }
  const out: { node: TreeNode; depth: number }[] = [];
  const visit = (parent: string | null, depth: number) => {
    for (const node of children.get(parent) ?? []) {
      out.push({ node, depth });
      if (node.id) visit(node.id, depth + 1);
    }
  };
  visit(null, 0);
  return out;
}

/** A log line without the timestamp the server prefixes (RFC 3339 and a space). */
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\S+ /;

/**
 * Copies the streamed log to stdout line by line until it ends or `signal` aborts (Ctrl-C, a closed pipe), which
 * ends quietly.
 */
async function copyLines(body: ReadableStream<Uint8Array>, timestamps: boolean, signal: AbortSignal): Promise<void> {
  const decoder = new TextDecoder();
  let rest = '';
  const write = (line: string) => process.stdout.write(`${timestamps ? line : line.replace(TIMESTAMP, '')}\n`);
  try {
    for await (const chunk of body) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) write(line);
    }
    rest += decoder.decode();
    if (rest !== '') write(rest);
  } catch (err) {
    if (!signal.aborted) throw new CliError(`the log stream broke: ${(err as Error).message}`, EXIT.failed);
  }
}

/** Registers `svc app diff`, `svc app resources` and `svc app logs` on the `svc app` command. */
export function registerAppLiveCommands(app: Command): void {
  registerDiff(app);
  registerResources(app);
  registerLogs(app);
}

/** `svc app diff`. */
function registerDiff(app: Command): void {
  appCommand(
    app,
    'diff <app>',
    'what a sync would change, as a unified diff; exit 0 when there is nothing to change, 1 when there is',
  )
    .option(
      '--revision <ref>',
      'preview a branch, tag, commit id or refs/pull/N/head of the App’s repository instead (writes nothing)',
    )
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const revision = cmd.opts().revision as string | undefined;
        let answer: AppDiff;
        try {
          const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
          const query = revision === undefined ? {} : { query: { revision } };
          answer = await api.GET(`${APP_PATH}/diff`, { params: { path: ref, ...query } });
        } catch (err) {
          // Exit 1 means "differences" here (as with kubectl diff and diff(1)): a failure that other commands report
          // as 1 reports as 5, so a script never mistakes an unreachable server for a pending change.
          if (err instanceof CliError && err.exitCode === EXIT.failed) throw new CliError(err.message, EXIT.diffFailed);
          throw err;
        }
        const s = answer.summary;
        printDiff(answer, s, format);
        if (hasDifferences(s)) process.exitCode = EXIT.differences;
      }),
    );
}

/** A diff as people read it (a summary `s` on stderr, the coloured unified diff on stdout), or as JSON/YAML. */
function printDiff(answer: AppDiff, s: Required<NonNullable<AppDiff['summary']>>, format: OutputFormat): void {
  if (format !== 'table' && format !== 'wide') {
    print(render(answer, format, () => ''));
    return;
  }
  for (const o of answer.objects ?? []) {
    if (o.message) process.stderr.write(`${o.kind}/${o.name}: ${o.message}\n`);
    if (o.drift) {
      const owners = o.drift.taken_by.length > 0 ? ` (now owned by ${o.drift.taken_by.join(', ')})` : '';
      process.stderr.write(`${o.kind}/${o.name}: drifted: ${o.drift.fields.join(', ')}${owners}\n`);
    }
  }
  process.stderr.write(
    `${answer.name}: ${answer.sync_status}${answer.drifted ? ' (drifted)' : ''}: ${s.changed} changed, ${s.missing} missing, ${s.extra} extra, ${s.same} same\n`,
  );
  if (answer.unified) process.stdout.write(colourDiff(answer.unified));
}

/** `svc app resources`. */
function registerResources(app: Command): void {
  appCommand(app, 'resources <app>', 'the live resource tree: objects, their ReplicaSets, Jobs and Pods, with health')
    .alias('tree')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
        const answer = await api.GET(`${APP_PATH}/resources`, { params: { path: ref } });
        type Row = { node: TreeNode; depth: number };
        print(
          render(answer, format, (a) => ({
            rows: treeOrder(a.nodes ?? []),
            columns: [
              { header: 'kind', value: (r: Row) => `${'  '.repeat(r.depth)}${r.node.kind}` },
              { header: 'namespace', value: (r: Row) => r.node.namespace },
              { header: 'name', value: (r: Row) => r.node.name },
              { header: 'sync', value: (r: Row) => r.node.sync_status ?? '' },
              { header: 'health', value: (r: Row) => r.node.health ?? '' },
              { header: 'created', value: (r: Row) => r.node.created_at ?? '', wide: true },
              { header: 'message', value: (r: Row) => r.node.message ?? '', wide: true },
            ],
            empty: 'No resources.',
          })),
        );
      }),
    );
}

/** `svc app logs`. */
function registerLogs(app: Command): void {
  appCommand(app, 'logs <app>', 'the log of one of the App’s Pods, as plain lines; -f follows it until Ctrl-C')
    .option('--pod <pod>', 'which of the App’s Pods (default: a Healthy one, the newest; see svc app resources)')
    .option('-c, --container <container>', 'which container (default: the first)')
    .option('--tail <lines>', 'lines from the end, 1 to 5000 (default 200)')
    .option('--since <duration>', 'only lines newer than this, e.g. 10m or 1h')
    .option('-f, --follow', 'keep streaming new lines until Ctrl-C')
    .option('--timestamps', 'keep the timestamp the server puts before each line')
    .action(
      run(async (cmd) => {
        const { api } = runtimeOf(cmd);
        const opts = cmd.opts<{
          namespace?: string;
          pod?: string;
          container?: string;
          tail?: string;
          since?: string;
          follow?: boolean;
          timestamps?: boolean;
        }>();
        const since = sinceOf(opts);
        const ref = await resolveApp(api, argsOf(cmd)[0] as string, opts.namespace);
        const hangup = new AbortController();
        const stop = () => hangup.abort();
        // Ctrl-C (or a reader that went away: `| head`) ends the stream, and the command, quietly.
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        process.stdout.on('error', stop);
        try {
          // The raw call: the answer's headers name the Pod chosen.
          const { data: body, response } = await api.raw.GET(`${APP_PATH}/logs`, {
            params: {
              path: ref,
              query: {
                pod: opts.pod,
                container: opts.container,
                tail: opts.tail,
                since,
                ...(opts.follow ? { follow: 'true' } : {}),
              },
            },
            headers: { accept: 'text/plain, application/json' },
            parseAs: 'stream',
            signal: hangup.signal,
          });
          const pods = Number(response.headers.get('x-svc-pod-count') ?? '1');
          if (opts.pod === undefined && pods > 1) {
            process.stderr.write(`pod ${response.headers.get('x-svc-pod')} (1 of ${pods}; --pod to choose another)\n`);
          }
          if (body) await copyLines(body, opts.timestamps === true, hangup.signal);
        } catch (err) {
          if (!hangup.signal.aborted) throw err;
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
        }
      }),
    );
}

/** `--since` as whole seconds for the server; `--tail` checked on the way (usage errors before any request). */
function sinceOf(opts: { tail?: string; since?: string }): string | undefined {
  if (opts.tail !== undefined && !/^[0-9]{1,5}$/.test(opts.tail)) {
    throw new CliError('--tail must be a number of lines from 1 to 5000', EXIT.usage);
  }
  return opts.since === undefined ? undefined : `${Math.ceil(durationOption('--since', opts.since) / 1000)}s`;
}
