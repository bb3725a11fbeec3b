/**
 * `svc login`, `svc logout`, `svc whoami` and `svc context …`: which server the client talks to and with which API
 * key, kept as named contexts in the configuration file (./contexts.ts, mode 0600).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Me } from '../../client/answers.ts';
import { apiClient } from './api.ts';
import { browserLogin } from './browser-login.ts';
import { configPath, DEFAULT_CONTEXT, normalizeServer, readConfig, writeConfig } from './contexts.ts';
import { CliError, EXIT } from './errors.ts';
import { parseOutputFormat, render } from './output.ts';
import { argsOf, durationOption, type GlobalFlags, print, run, runtimeOf } from './runtime.ts';

/** `me` in one line: who, with which role, in which org. */
function whoText(me: Me): string {
  return `${me.user?.email} (${me.user?.role || 'no role'} in ${me.org?.name ?? 'no organization'})`;
}

interface LoginFlags extends GlobalFlags {
  apiKey?: string;
  apiKeyStdin?: boolean;
  browser?: boolean;
  open: boolean;
  role: string;
  expiresDays: string;
  timeout: string;
}

/** The key to log in with: --api-key, stdin, SVC_API_KEY, else one handed over by the browser. */
async function keyFor(server: string, flags: LoginFlags): Promise<string> {
  if (flags.apiKey) return flags.apiKey;
  if (flags.apiKeyStdin) return readFileSync(0, 'utf8').trim();
  if (!flags.browser && process.env['SVC_API_KEY']) return process.env['SVC_API_KEY'];
  const expiresDays = Number(flags.expiresDays);
  if (!Number.isInteger(expiresDays) || expiresDays < 0) {
    throw new CliError('--expires-days must be a whole number ≥ 0', EXIT.usage);
  }
  return browserLogin({
    server,
    role: flags.role,
    expiresDays,
    timeoutMs: durationOption('--timeout', flags.timeout),
    open: flags.open,
    tell: (text) => process.stderr.write(text),
  });
}

/** Registers login, logout, whoami and context on `program`. */
export function registerLoginCommands(program: Command): void {
  program
    .command('login [server]')
    .description(
      'log in to an svc server: with an API key (--api-key, --api-key-stdin or SVC_API_KEY), or by confirming in a browser where you are signed in',
    )
    .option('--api-key <key>', 'an API key (svc_…); --api-key-stdin keeps it out of the shell history')
    .option('--api-key-stdin', 'read the API key from stdin')
    .option('--browser', 'mint a key by confirming in the browser (the default without a key)')
    .option('--no-open', 'print the browser page instead of opening it')
    .option('--role <role>', 'role ceiling of a key minted in the browser: read, sync or admin', 'admin')
    .option('--expires-days <days>', 'lifetime of a key minted in the browser (0 = never expires)', '90')
    .option('--timeout <duration>', 'how long to wait for the browser', '5m')
    .action(
      run(async (cmd) => {
        const flags = cmd.optsWithGlobals<LoginFlags>();
        const path = configPath();
        const config = readConfig(path);
        const name = flags.context ?? config['current-context'] ?? DEFAULT_CONTEXT;
        const given = argsOf(cmd)[0] ?? flags.server ?? process.env['SVC_SERVER'] ?? config.contexts[name]?.server;
        if (!given) throw new CliError('which server? svc login <server-url>', EXIT.usage);
        const server = normalizeServer(given);
        const key = await keyFor(server, flags);
        const me = await apiClient(server, key).GET('/api/v1/auth/me');
        config.contexts[name] = { server, 'api-key': key };
        config['current-context'] = name;
        writeConfig(path, config);
        const format = parseOutputFormat(flags.output);
        const answer = { context: name, server, user: me.user, org: me.org };
        print(
          render(answer, format, () => `Logged in to ${server} as ${whoText(me)}; context "${name}" saved in ${path}`),
        );
      }),
    );

  program
    .command('logout')
    .description('forget the API key of the current context (or --context); the key itself stays valid until revoked')
    .action(
      run(async (cmd) => {
        const flags = cmd.optsWithGlobals<GlobalFlags>();
        const path = configPath();
        const config = readConfig(path);
        const name = flags.context ?? config['current-context'];
        const context = name !== undefined ? config.contexts[name] : undefined;
        if (!name || !context) throw new CliError('not logged in', EXIT.auth);
        delete context['api-key'];
        writeConfig(path, config);
        print(`Logged out of ${context.server} (context "${name}")`);
      }),
    );

  program
    .command('whoami')
    .description('the user, org and role behind the current credentials')
    .action(
      run(async (cmd) => {
        const { api, format, target } = runtimeOf(cmd);
        const me = await api.GET('/api/v1/auth/me');
        print(render(me, format, () => `${whoText(me)} on ${target.server}`));
      }),
    );
  registerContextCommands(program);
}

/** `svc context …`: the saved contexts. */
function registerContextCommands(program: Command): void {
  const context = program.command('context').description('the saved contexts (server and API key)');
  context
    .command('list')
    .alias('ls')
    .description('every saved context; * marks the current one')
    .action(
      run(async (cmd) => {
        const config = readConfig(configPath());
        const rows = Object.entries(config.contexts).map(([name, c]) => ({
          current: name === config['current-context'],
          name,
          server: c.server,
          logged_in: c['api-key'] !== undefined,
        }));
        const format = parseOutputFormat(cmd.optsWithGlobals<GlobalFlags>().output);
        print(
          render({ current: config['current-context'] ?? null, contexts: rows }, format, () => ({
            rows,
            columns: [
              { header: 'current', value: (r: (typeof rows)[number]) => (r.current ? '*' : '') },
              { header: 'name', value: (r: (typeof rows)[number]) => r.name },
              { header: 'server', value: (r: (typeof rows)[number]) => r.server },
              { header: 'logged in', value: (r: (typeof rows)[number]) => (r.logged_in ? 'yes' : 'no') },
            ],
            empty: 'No contexts: run svc login <server-url>.',
          })),
        );
      }),
    );
  context
    .command('use <name>')
    .description('make a saved context the current one')
    .action(
      run(async (cmd) => {
        const [name] = argsOf(cmd) as [string];
        const path = configPath();
        const config = readConfig(path);
        if (!config.contexts[name]) throw new CliError(`no context named "${name}"`, EXIT.notFound);
        config['current-context'] = name;
        writeConfig(path, config);
        print(`Current context: ${name} (${config.contexts[name].server})`);
      }),
    );
  context
    .command('delete <name>')
    .description('forget a saved context')
    .action(
      run(async (cmd) => {
        const [name] = argsOf(cmd) as [string];
        const path = configPath();
        const config = readConfig(path);
        if (!config.contexts[name]) throw new CliError(`no context named "${name}"`, EXIT.notFound);
        delete config.contexts[name];
        if (config['current-context'] === name) delete config['current-context'];
        writeConfig(path, config);
        print(`Context ${name} deleted`);
      }),
    );
}
