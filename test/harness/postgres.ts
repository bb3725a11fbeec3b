import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A database of its own for one test file. */
export interface PostgresDatabase {
  /** `postgres://...` URL of the new database. */
  url: string;
  /** Database name. */
  name: string;
  /** Drops the database (terminating leftover connections). */
  drop(): Promise<void>;
}

/**
 * The server URL: `SVC_TEST_POSTGRES_URL`, exported by scripts/start-postgres.sh (and by scripts/ci-setup.sh).
 * Throws with instructions when unset.
 */
export function postgresServerURL(): string {
  const url = process.env['SVC_TEST_POSTGRES_URL'];
  if (!url) {
    throw new Error('SVC_TEST_POSTGRES_URL is not set: run `eval "$(bash scripts/start-postgres.sh)"` first');
  }
  return url;
}

/** Creates a fresh, uniquely named database on the test server; call drop() in afterAll. */
export async function createPostgresDatabase(): Promise<PostgresDatabase> {
  const server = postgresServerURL();
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * A fresh database of `kind` for a store test: a SQLite file in a new temp directory, or a new database on the test
 * PostgreSQL server; `drop()` removes it.
 */
export async function freshDatabase(
  kind: 'sqlite' | 'postgres',
): Promise<{ config: { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string }; drop(): Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
    return {
      config: { kind: 'sqlite', path: join(dir, 'svc.db') },
      drop: async () => rmSync(dir, { recursive: true }),
    };
  }
  const db = await createPostgresDatabase();
  return { config: { kind: 'postgres', url: db.url }, drop: () => db.drop() };
}
