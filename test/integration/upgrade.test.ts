/**
 * Upgrading from the previous release (0.1.0 = commit 87a0a1c, see test/harness/previous-release.ts) to this one,
 * with the real parts, the way docs/install.md ("Upgrades") says to do it:
 *   1. the previous release's own `svc server` (its code and dependencies, built from history) runs against a
 *      control plane carrying the previous release's App CRD (v1alpha1, its schema) and writes real data: a user and
 *      a session, an org and its namespace, an App created through its API, an API key, audit entries; once on
 *      SQLite, once on PostgreSQL;
 *   2. backup as documented: the stopped server's SQLite file copied; PostgreSQL dumped with pg_dump -Fc and
 *      restored with pg_restore into a new database (the upgrade then runs on the restored copies);
 *   3. the CRD upgraded by installing this release's chart over it (adopting the CRD installed without Helm): the
 *      stored Apps read back unchanged (same resourceVersion, spec and status) and the stored version stays v1alpha1;
 *   4. this release's `svc server` on each restored database: its migrations run, the old session and API key still
 *      authenticate, the old App is listed and accepts an operation (so it validates under the new schema), the old
 *      audit entries are there, and svc's tables are exactly those a fresh database of this release gets (columns,
 *      indexes, constraints, triggers): the previous release's migrations and this release's (one file each since)
 *      build the same schema.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/store/database.ts';
import { migrateStore, svcMigrationNames } from '../../src/store/migrations.ts';
import {
  type ControlPlane,
  createPostgresDatabase,
  describeWith,
  freePort,
  helm,
  kubectl,
  type PostgresDatabase,
  PREVIOUS_RELEASE,
  postgresRequirement,
  previousRelease,
  previousReleaseMissing,
  repoRoot,
  startControlPlane,
  waitUntil,
} from '../harness/index.ts';
import { type ManagedProcess, makeTempDir, removeTempDir, startProcess } from '../harness/process.ts';

const run = promisify(execFile);
type Kind = 'sqlite' | 'postgres';
const KINDS: Kind[] = ['sqlite', 'postgres'];

/** What the previous release wrote for one database kind, to be found again after the upgrade. */
interface Written {
  slug: string;
  cookie: string;
  key: string;
  userId: string;
  auditActions: string[];
  app: Record<string, any>;
  /** Database URL the upgraded server runs on (the restored backup). */
  restoredURL: string;
}

describeWith(postgresRequirement(), { what: 'the git history', missing: previousReleaseMissing() })(
  `upgrade from ${PREVIOUS_RELEASE.version}`,
  () => {
    const secrets = {
      AUTH_SECRET: randomBytes(24).toString('hex'),
      SVC_CREDENTIALS_KEY: randomBytes(32).toString('hex'),
    };
    let plane: ControlPlane;
    let dir: string;
    let oldRelease: string;
    const databases: PostgresDatabase[] = [];
    const processes: ManagedProcess[] = [];
    const written = {} as Record<Kind, Written>;

    const admin = (args: string[], input?: string) =>
      kubectl(plane.kubeconfigPath, args, input === undefined ? {} : { input });
    /** Waits for the App CRD to be Established (as the harness's applyCrds does: `kubectl wait` errors instead of
     * waiting while a just-created CRD has no status yet, so it is retried). */
    const crdEstablished = () =>
      waitUntil(
        () => admin(['wait', '--for=condition=Established', 'crd/apps.cd.svc.space', '--timeout=60s']).then(() => true),
        { what: 'the App CRD Established', timeoutMs: 90_000 },
      );
    const getApp = async (namespace: string, name: string) =>
      JSON.parse((await admin(['get', 'apps.cd.svc.space', name, '-n', namespace, '-o', 'json'])).stdout) as Record<
        string,
        any
      >;

    /** Starts `svc server` of `release` (a checkout) on `databaseURL`; resolves with its base URL once ready. */
    async function startServer(
      release: string,
      name: string,
      databaseURL: string,
    ): Promise<{ base: string; stop(): Promise<void> }> {
      const port = await freePort();
      const data = makeTempDir(`upgrade-${name}`);
      const proc = startProcess(name, process.execPath, [join(release, 'bin/svc.js'), 'server'], {
        logDir: dir,
        cwd: release,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: data,
          ...secrets,
          SVC_DATA_DIR: data,
          SVC_DATABASE_URL: databaseURL,
          SVC_MGMT_KUBECONFIG: plane.kubeconfigPath,
          SVC_LISTEN: `127.0.0.1:${port}`,
          // The previous release trusts its public URL's origin only.
          SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
          SVC_LOG_LEVEL: 'warn',
        },
      });
      processes.push(proc);
      const base = `http://127.0.0.1:${port}`;
      await waitUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok === true, {
        what: `${name} ready (log: ${proc.logPath})`,
        timeoutMs: 60_000,
      });
      return { base, stop: () => proc.stop() };
    }

    async function call<T = any>(
      base: string,
      method: string,
      path: string,
      auth: { cookie?: string; key?: string },
      body?: unknown,
    ) {
      const headers: Record<string, string> = { origin: base };
      if (auth.cookie) headers['cookie'] = auth.cookie;
      if (auth.key) headers['authorization'] = `Bearer ${auth.key}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as T, headers: res.headers };
    }

    async function newDatabase(): Promise<PostgresDatabase> {
      const db = await createPostgresDatabase();
      databases.push(db);
      return db;
    }

    beforeAll(async () => {
      dir = makeTempDir('upgrade');
      [plane, oldRelease] = await Promise.all([
        startControlPlane({ name: 'upgrade', kwok: false, controllers: false, crds: false }),
        previousRelease(),
      ]);
      // The previous release's CRD, as its users installed it (kubectl apply of deploy/crds/).
      await admin(['apply', '-f', join(oldRelease, 'deploy/crds/apps.cd.svc.space.yaml')]);
      await crdEstablished();
    }, 300_000);

    afterAll(async () => {
      for (const p of processes) await p.stop();
      await plane?.stop();
      for (const db of databases) await db.drop();
      if (dir) removeTempDir(dir);
    });

    it.each(KINDS)(`the previous release writes its data on %s`, async (kind) => {
      const slug = `up-${kind}-${randomBytes(2).toString('hex')}`;
      const sqliteDir = makeTempDir(`upgrade-db-${kind}`);
      const url = kind === 'sqlite' ? `sqlite:${join(sqliteDir, 'svc.db')}` : (await newDatabase()).url;
      const old = await startServer(oldRelease, `old-${kind}`, url);
      const signUp = await call(
        old.base,
        'POST',
        '/api/auth/sign-up/email',
        {},
        {
          email: `${slug}@example.test`,
          password: 'correct horse battery',
          name: 'Ada',
        },
      );
      expect(signUp.status).toBe(200);
      const cookie = signUp.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      expect(
        (await call(old.base, 'POST', '/api/auth/organization/create', { cookie }, { name: slug, slug })).status,
      ).toBe(200);
      const created = await call(
        old.base,
        'POST',
        '/api/v1/apps',
        { cookie },
        {
          name: 'web',
          namespace: `${slug}-shop`,
          source: { type: 'Git', git: { repoURL: 'https://git.example.test/shop.git', path: 'web' } },
          sync_policy: { prune: true },
        },
      );
      expect(created.status).toBe(201);
      const minted = await call(
        old.base,
        'POST',
        '/api/v1/auth/api-keys',
        { cookie },
        {
          name: 'ci',
          role: 'admin',
          scope: 'org',
          expires_days: 30,
        },
      );
      expect(minted.status).toBe(201);
      const me = await call(old.base, 'GET', '/api/v1/auth/me', { cookie });
      const audit = await call(old.base, 'GET', '/api/v1/audit?limit=50', { cookie });
      await old.stop();

      // Backup as docs/install.md says, taken from the stopped server; the upgrade runs on the restored copy.
      let restoredURL: string;
      if (kind === 'sqlite') {
        const backup = makeTempDir('upgrade-backup');
        for (const f of readdirSync(sqliteDir).filter((f) => f.startsWith('svc.db'))) {
          copyFileSync(join(sqliteDir, f), join(backup, f));
        }
        restoredURL = `sqlite:${join(backup, 'svc.db')}`;
      } else {
        const dump = join(dir, 'svc.dump');
        await run('pg_dump', ['--format=custom', `--file=${dump}`, '--no-owner', url]);
        const restored = await newDatabase();
        await run('pg_restore', ['--no-owner', `--dbname=${restored.url}`, dump]);
        restoredURL = restored.url;
      }
      written[kind] = {
        slug,
        cookie,
        key: minted.body.key,
        userId: me.body.user.id,
        auditActions: (audit.body.entries as { action: string }[]).map((e) => e.action),
        app: await getApp(`org-${slug}`, 'web'),
        restoredURL,
      };
      expect(written[kind].auditActions).toEqual(expect.arrayContaining(['app.create', 'apikey.create']));
    });

    it("upgrades the CRD by installing this release's chart over it: stored Apps read back unchanged", async () => {
      expect(Object.keys(written)).toEqual(KINDS);
      // Adopt the CRD installed without Helm (docs/install.md, "Upgrades"), then install the chart.
      await admin(['label', 'crd', 'apps.cd.svc.space', 'app.kubernetes.io/managed-by=Helm']);
      await admin([
        'annotate',
        'crd',
        'apps.cd.svc.space',
        'meta.helm.sh/release-name=svc',
        'meta.helm.sh/release-namespace=svc-system',
      ]);
      const before = JSON.parse((await admin(['get', 'crd', 'apps.cd.svc.space', '-o', 'json'])).stdout);
      await helm(
        [
          'install',
          'svc',
          join(repoRoot, 'deploy/chart'),
          '-n',
          'svc-system',
          '--create-namespace',
          '--set',
          'database.url=postgres://unused/svc',
          // Helm applies server-side: it takes the CRD's fields over from kubectl's earlier apply.
          '--force-conflicts',
        ],
        { kubeconfigPath: plane.kubeconfigPath },
      );
      await crdEstablished();
      const after = JSON.parse((await admin(['get', 'crd', 'apps.cd.svc.space', '-o', 'json'])).stdout);
      expect(after.metadata.generation).toBeGreaterThan(before.metadata.generation);
      expect(after.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
      expect(after.status.storedVersions).toEqual(['v1alpha1']);
      for (const kind of KINDS) {
        const { slug, app } = written[kind];
        const now = await getApp(`org-${slug}`, 'web');
        expect(now.metadata.resourceVersion).toBe(app['metadata'].resourceVersion);
        expect(now['spec']).toEqual(app['spec']);
        expect(now['status']).toEqual(app['status']);
      }
    });

    it.each(KINDS)('this release migrates the restored %s database and serves the old data', async (kind) => {
      const w = written[kind];
      const server = await startServer(repoRoot, `current-${kind}`, w.restoredURL);
      const me = await call(server.base, 'GET', '/api/v1/auth/me', { cookie: w.cookie });
      expect(me.status).toBe(200);
      expect(me.body.user.id).toBe(w.userId);
      const apps = await call(server.base, 'GET', '/api/v1/apps', { key: w.key });
      expect(apps.status).toBe(200);
      expect(JSON.stringify(apps.body)).toContain(`${w.slug}-shop`);
      const sync = await call(server.base, 'POST', `/api/v1/apps/${w.slug}-shop/web/sync`, { key: w.key });
      expect(sync.status).toBe(200);
      const audit = await call(server.base, 'GET', '/api/v1/audit?limit=50', { cookie: w.cookie });
      const actions = (audit.body.entries as { action: string }[]).map((e) => e.action);
      expect(actions.slice(1)).toEqual(w.auditActions);
      expect(actions[0]).toBe('app.sync');
      // Every migration of this release is recorded, once.
      expect(await migrationNames(kind, w.restoredURL)).toEqual(svcMigrationNames(kind));
      await server.stop();
      // svc's own tables, as the upgrade left them, are exactly what a fresh database of this release gets.
      const freshURL =
        kind === 'sqlite' ? `sqlite:${join(makeTempDir('upgrade-fresh'), 'svc.db')}` : (await newDatabase()).url;
      const fresh = openStore(
        kind === 'sqlite' ? { kind, path: freshURL.slice('sqlite:'.length) } : { kind, url: freshURL },
      );
      try {
        await migrateStore(fresh);
      } finally {
        await fresh.close();
      }
      const tables = await tableNames(kind, freshURL);
      expect(tables).toContain('audit_log');
      expect(await schemaOf(kind, w.restoredURL, tables)).toEqual(await schemaOf(kind, freshURL, tables));
    });
  },
);

/** Runs `query` with `params` on the database at `url`, answering its rows. */
async function rows<T>(kind: Kind, url: string, query: string, params: unknown[] = []): Promise<T[]> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(query, params)).rows as T[];
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(url.slice('sqlite:'.length), { readonly: true });
  try {
    return db.prepare(query).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** The tables of a database. */
async function tableNames(kind: Kind, url: string): Promise<string[]> {
  const query =
    kind === 'postgres'
      ? "select tablename as name from pg_tables where schemaname = 'public' order by 1"
      : "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by 1";
  return (await rows<{ name: string }>(kind, url, query)).map((r) => r.name);
}

/** The schema of `tables` as the database reports it: columns, indexes, constraints and triggers, one line each. */
async function schemaOf(kind: Kind, url: string, tables: string[]): Promise<string[]> {
  if (kind === 'sqlite') {
    const marks = tables.map(() => '?').join(',');
    const query = `select type || ' ' || name || ': ' || coalesce(sql, '') as line from sqlite_master where tbl_name in (${marks}) order by 1`;
    return (await rows<{ line: string }>(kind, url, query, tables)).map((r) => r.line);
  }
  const queries = [
    `select table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as line
       from information_schema.columns where table_schema = 'public' and table_name = any($1)`,
    "select indexdef as line from pg_indexes where schemaname = 'public' and tablename = any($1)",
    `select conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) as line
       from pg_constraint where conrelid::regclass::text = any($1)`,
    `select pg_get_triggerdef(oid) as line from pg_trigger where not tgisinternal and tgrelid::regclass::text = any($1)`,
  ];
  const lines: string[] = [];
  for (const q of queries) lines.push(...(await rows<{ line: string }>(kind, url, q, [tables])).map((r) => r.line));
  return lines.sort();
}

/** Names of the svc migrations recorded in a database (its `svc_migration` table), in name order. */
async function migrationNames(kind: Kind, url: string): Promise<string[]> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<{ name: string }>('select name from svc_migration order by name')).rows.map(
        (r) => r.name,
      );
    } finally {
      await client.end();
    }
  }
  const path = url.slice('sqlite:'.length);
  expect(existsSync(path)).toBe(true);
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('select name from svc_migration order by name').all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}
