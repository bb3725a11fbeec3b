/**
 * A PostgreSQL server of its own for a fault test (issue 17): initdb'd in a temp directory and started on a free
 * loopback port from Debian's `postgresql` package, so a test can stop, start and restart it without disturbing the
 * shared test server (`SVC_TEST_POSTGRES_URL`). Same disposable settings as scripts/start-postgres.sh (trust auth on
 * 127.0.0.1, fsync off).
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.ts';
import { makeTempDir, removeTempDir } from './process.ts';
import type { Requirement } from './requirements.ts';

const run = promisify(execFile);
const root = '/usr/lib/postgresql';

/** The newest installed `/usr/lib/postgresql/<major>/bin`, or undefined. */
function postgresBin(): string | undefined {
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = majors.at(-1);
  return newest === undefined ? undefined : join(root, newest, 'bin');
}

/** The PostgreSQL server binaries (initdb, pg_ctl) for {@link startPostgresInstance}. */
export function postgresBinariesRequirement(): Requirement {
  return {
    what: 'PostgreSQL server binaries',
    missing: postgresBin() ? undefined : `no ${root}/*/bin/pg_ctl (apt-get install -y postgresql)`,
  };
}

/** A running PostgreSQL server owned by one test. */
export interface PostgresInstance {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  port: number;
  /** Fast shutdown (`pg_ctl stop -m fast`: sessions are cut); resolves once the server is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** `pg_ctl restart -m fast`: every session is cut, the server comes back on the same port. */
  restart(): Promise<void>;
  /** Stops the server and deletes its data. */
  destroy(): Promise<void>;
}

/**
 * Initialises and starts a PostgreSQL server in a new temp directory on a free port. initdb and postgres refuse to
 * run as root, so as root they run as the `postgres` account the Debian package creates. Call destroy() in afterAll.
 */
export async function startPostgresInstance(label = 'pg'): Promise<PostgresInstance> {
  const bin = postgresBin();
  if (!bin) throw new Error(`PostgreSQL server binaries not found under ${root} (apt-get install -y postgresql)`);
  const asRoot = process.getuid?.() === 0;
  const exec = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);
  const dir = makeTempDir(label);
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  await exec('initdb', [
    `--pgdata=${data}`,
    '--username=postgres',
    '--auth=trust',
    '--no-sync',
    '--encoding=UTF8',
    '--locale=C.UTF-8',
  ]);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const pgctl = (...args: string[]) => exec('pg_ctl', ['-D', data, ...args]);
  const start = async () => {
    await pgctl('-l', join(dir, 'server.log'), '-w', '-t', '60', 'start', '-o', options);
  };
  const stop = async () => {
    await pgctl('-m', 'fast', '-w', 'stop').catch(async (err: unknown) => {
      // Already stopped is fine; anything else is not.
      const status = await pgctl('status').then(
        () => 'running',
        () => 'stopped',
      );
      if (status === 'running') throw err;
    });
  };
  await start();
  let destroyed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    async restart() {
      await pgctl('-l', join(dir, 'server.log'), '-m', 'fast', '-w', '-t', '60', 'restart', '-o', options);
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await stop();
      removeTempDir(dir);
    },
  };
}
