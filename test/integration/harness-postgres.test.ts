import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, type PostgresDatabase, postgresServerURL } from '../harness/index.ts';

describe('harness: PostgreSQL', () => {
  let db: PostgresDatabase;

  beforeAll(async () => {
    db = await createPostgresDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('gives this file its own database on a PostgreSQL 15 server', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ db: string; version: string }>(
        'SELECT current_database() AS db, current_setting($1) AS version',
        ['server_version_num'],
      );
      expect(rows[0]?.db).toBe(db.name);
      expect(Number(rows[0]?.version)).toBeGreaterThanOrEqual(150000);
      await client.query('CREATE TABLE t (id int PRIMARY KEY, v text)');
      await client.query('INSERT INTO t VALUES (1, $1)', ['one']);
      expect((await client.query('SELECT v FROM t WHERE id = 1')).rows).toEqual([{ v: 'one' }]);
    } finally {
      await client.end();
    }
  });

  it('drops the database', async () => {
    const other = await createPostgresDatabase();
    await other.drop();
    const client = new pg.Client({ connectionString: postgresServerURL() });
    await client.connect();
    try {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [other.name]);
      expect(rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });
});
