/**
 * Fault matrix (issue 17): the server SIGKILLed during a migration. `svc server` starts on a fresh PostgreSQL database
 * and is held inside its migration transaction: the test's own open transaction is creating `secret_store`, so the
 * server's `CREATE TABLE secret_store` (migration 0012, after 0001, 0010 and 0011 in the same transaction) waits on it.
 * The server is killed there, while it holds svc's migration lock. Nothing half-done remains: the migrations it ran
 * are rolled back with its transaction, and the lock goes with its session. Started again on the same database with
 * nothing cleaned by hand, it applies every migration and serves.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { svcMigrationNames } from '../../src/store/migrations.ts';
import {
  createPostgresDatabase,
  describeWith,
  freePort,
  type PostgresDatabase,
  postgresRequirement,
  repoRoot,
  waitUntil,
} from '../harness/index.ts';
import { type ManagedProcess, makeTempDir, removeTempDir, startProcess } from '../harness/process.ts';

describeWith(postgresRequirement())('fault: the server killed during a migration', () => {
  let db: PostgresDatabase;
  let dir: string;
  let probe: pg.Client;
  const processes: ManagedProcess[] = [];
  const secrets = {
    AUTH_SECRET: randomBytes(24).toString('hex'),
    SVC_CREDENTIALS_KEY: randomBytes(32).toString('hex'),
  };

  beforeAll(async () => {
    db = await createPostgresDatabase();
    dir = makeTempDir('fault-migration');
    probe = new pg.Client({ connectionString: db.url });
    await probe.connect();
  });
  afterAll(async () => {
    for (const proc of processes) await proc.stop();
    await probe?.end();
    await db?.drop();
    if (dir) removeTempDir(dir);
  });

  /** Starts `svc server` on the test database; resolves with its base URL and process (not waiting for readiness). */
  async function startServer(name: string): Promise<{ base: string; proc: ManagedProcess }> {
    const port = await freePort();
    const data = join(dir, name);
    const proc = startProcess(
      name,
      join(repoRoot, 'node_modules/.bin/node'),
      [join(repoRoot, 'bin/svc.js'), 'server'],
      {
        logDir: dir,
        leakScanAs: `svc server log (${name}, fault-migration-kill)`,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: data,
          ...secrets,
          SVC_DATA_DIR: data,
          SVC_DATABASE_URL: db.url,
          SVC_MGMT_KUBECONFIG: inject('mgmtKubeconfig'),
          SVC_LISTEN: `127.0.0.1:${port}`,
          SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
          SVC_LOG_LEVEL: 'warn',
        },
      },
    );
    processes.push(proc);
    return { base: `http://127.0.0.1:${port}`, proc };
  }
  /** Other sessions on the test database, with what they wait for and run. */
  const otherSessions = async () =>
    (
      await probe.query<{ pid: number; wait_event_type: string | null; state: string; query: string }>(
        'select pid, wait_event_type, state, query from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [db.name],
      )
    ).rows;
  const tableExists = async (name: string) =>
    (await probe.query('select to_regclass($1) as t', [`public.${name}`])).rows[0]?.t !== null;
  const appliedMigrations = async () =>
    (await tableExists('svc_migration'))
      ? (await probe.query<{ name: string }>('select name from svc_migration order by name')).rows.map((r) => r.name)
      : [];

  it('a killed migration leaves nothing half-done; started again, the server completes it and serves', async () => {
    // The test's transaction creates secret_store first and stays open: the server's migration waits on it.
    const blocker = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    try {
      const blockerPid = (await blocker.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
      await blocker.query('begin');
      await blocker.query('create table secret_store (id text)');
      const first = await startServer('server-1');
      const waiting = await waitUntil(
        async () =>
          (await otherSessions()).find(
            (s) => s.wait_event_type === 'Lock' && /create table "secret_store"/i.test(s.query),
          ),
        { what: `server-1 waiting in its migration (log: ${first.proc.logPath})`, timeoutMs: 60_000, intervalMs: 50 },
      );
      expect(waiting.pid).toEqual(expect.any(Number));
      process.kill(-first.proc.pid, 'SIGKILL');
      await waitUntil(() => first.proc.exitCode() !== undefined || undefined, { what: 'server-1 dead' });
      // Its idle sessions end with it, releasing svc's migration lock.
      await waitUntil(
        async () => {
          const sessions = await otherSessions();
          if (sessions.every((s) => s.pid === waiting.pid || s.pid === blockerPid)) return true;
          throw new Error(JSON.stringify(sessions));
        },
        { what: 'the dead server idle sessions gone' },
      );
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }
    // The waiting statement now finds its client gone: its transaction aborts and every migration in it is undone.
    await waitUntil(async () => (await otherSessions()).length === 0 || undefined, {
      what: 'the killed migration session gone',
    });
    expect(await appliedMigrations()).toEqual([]);
    for (const table of ['api_key', 'registry', 'cluster', 'secret_store'])
      expect(await tableExists(table)).toBe(false);

    // Started again on the same database, nothing cleaned by hand: every migration applies and it serves.
    const second = await startServer('server-2');
    await waitUntil(async () => (await fetch(`${second.base}/readyz`).catch(() => undefined))?.ok || undefined, {
      what: `server-2 ready (log: ${second.proc.logPath})`,
      timeoutMs: 60_000,
    });
    expect(await appliedMigrations()).toEqual(svcMigrationNames('postgres'));
    const post = (path: string, body: unknown, cookie?: string) =>
      fetch(`${second.base}${path}`, {
        method: 'POST',
        headers: { origin: second.base, 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
        body: JSON.stringify(body),
      });
    const signUp = await post('/api/auth/sign-up/email', {
      email: `kill-${randomBytes(3).toString('hex')}@example.test`,
      password: 'correct horse battery',
      name: 'kill',
    });
    expect(signUp.status, await signUp.clone().text()).toBe(200);
    const cookie = (signUp.headers.getSetCookie().find((c) => c.startsWith('better-auth.session_token=')) ?? '').split(
      ';',
    )[0] as string;
    const slug = `mig-${randomBytes(3).toString('hex')}`;
    expect((await post('/api/auth/organization/create', { name: slug, slug }, cookie)).status).toBe(200);
    const key = await post('/api/v1/auth/api-keys', { name: 'after', role: 'read' }, cookie);
    expect(key.status, await key.clone().text()).toBe(201);
    expect(await tableExists('secret_store')).toBe(true);
  });
});
