import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refuseAuditInserts } from '../../test/harness/audit-fault.ts';
import { freshDatabase } from '../../test/harness/postgres.ts';
import { describeWith, postgresRequirement } from '../../test/harness/requirements.ts';
import { ConflictError } from '../core/errors.ts';
import { Sealer, UnsealError } from '../secrets/seal.ts';
import { ApiKeyStore } from './api-keys.ts';
import { AuditStore } from './audit.ts';
import { ClusterShellStore } from './cluster-shells.ts';
import { ClusterStore } from './clusters.ts';
import { isUniqueViolation, openStore, type Store } from './database.ts';
import { DbLease } from './lease.ts';
import { migrateStore } from './migrations.ts';
import { RegistryStore } from './registries.ts';
import { RoleBindingStore } from './role-bindings.ts';
import { SecretStoreStore } from './secret-stores.ts';
import { inTransaction } from './transaction.ts';

for (const kind of ['sqlite', 'postgres'] as const) {
  (kind === 'postgres' ? describeWith(postgresRequirement()) : describe)(`store on ${kind}`, () => {
    let store: Store;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      const fresh = await freshDatabase(kind);
      drop = fresh.drop;
      store = openStore(fresh.config);
      await migrateStore(store);
    });
    afterAll(async () => {
      await store?.close();
      await drop?.();
    });

    it('migrates idempotently, also from several replicas starting at once', async () => {
      await migrateStore(store);
      const fresh = await freshDatabase(kind);
      const replicas = [openStore(fresh.config), openStore(fresh.config), openStore(fresh.config)];
      try {
        await Promise.all(replicas.map((r) => migrateStore(r)));
        const audit = new AuditStore(replicas[0]?.db ?? store.db);
        expect(await audit.list('none', 10, 0)).toEqual([]);
      } finally {
        await Promise.all(replicas.map((r) => r.close()));
        await fresh.drop();
      }
    });

    it('stores API keys hashed, finds live ones, expires and revokes them', async () => {
      const keys = new ApiKeyStore(store.db);
      const { record, key } = await keys.create({
        userId: 'u1',
        orgId: 'o1',
        name: 'ci',
        role: 'sync',
        scope: 'deployment',
        scopeId: '/web',
        expiresDays: 0,
      });
      expect(key).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
      expect(record.prefix).toBe(key.slice(0, 12));
      expect(record.expiresAt).toBeNull();
      const raw = await store.db
        .selectFrom('api_key')
        .selectAll()
        .where('id', '=', record.id)
        .executeTakeFirstOrThrow();
      expect(JSON.stringify(raw)).not.toContain(key);

      expect((await keys.findActive(key))?.id).toBe(record.id);
      expect(await keys.findActive(`${key}x`)).toBeUndefined();
      expect(await keys.getForUser(record.id, 'u2', 'o1')).toBeUndefined();
      expect(await keys.revoke(record.id, 'u2', 'o1')).toBe(false);
      expect(await keys.revoke(record.id, 'u1', 'o1')).toBe(true);
      expect(await keys.revoke(record.id, 'u1', 'o1')).toBe(false);
      expect(await keys.findActive(key)).toBeUndefined();

      const past = new Date(Date.now() - 2 * 86_400_000);
      const expiring = await keys.create(
        { userId: 'u1', orgId: 'o1', name: 'old', role: 'read', scope: 'org', scopeId: '', expiresDays: 1 },
        past,
      );
      expect(await keys.findActive(expiring.key)).toBeUndefined();
      const listed = await keys.listForUser('u1', 'o1');
      expect(listed.map((k) => k.name).sort()).toEqual(['ci', 'old']);
      expect(await keys.listForUser('u1', 'o2')).toEqual([]);
    });

    it('appends audit entries, pages them newest first per org, and refuses edits', async () => {
      const audit = new AuditStore(store.db);
      for (let i = 0; i < 5; i++) {
        await audit.record({
          orgId: 'oa',
          userId: 'u1',
          action: 'app.sync',
          resourceType: 'app',
          resourceName: `a${i}`,
          details: { i },
        });
      }
      await audit.record({ orgId: 'ob', userId: '', action: 'app.create', resourceType: 'app', resourceName: 'x' });
      const page = await audit.list('oa', 2, 1);
      expect(page.map((e) => e.resource_name)).toEqual(['a3', 'a2']);
      expect(page[0]?.details).toEqual({ i: 3 });
      expect(page[0]?.resource_id).toBeUndefined();
      expect((await audit.list('oa', 500, 0)).length).toBe(5);
      expect((await audit.list('ob', 50, 0)).map((e) => e.action)).toEqual(['app.create']);
      await expect(store.db.updateTable('audit_log').set({ action: 'x' }).execute()).rejects.toThrow();
      await expect(store.db.deleteFrom('audit_log').execute()).rejects.toThrow();
    });

    it('writes a key and its audit entry together: a failed audit write leaves no key', async () => {
      const input = {
        userId: 'tx-user',
        orgId: 'o1',
        name: 'tx',
        role: 'read',
        scope: 'org',
        scopeId: '',
        expiresDays: 0,
      };
      const mintAudited = () =>
        inTransaction(store.db, async (tx) => {
          const { record } = await tx.apiKeys.create(input);
          await tx.audit.record({
            orgId: 'o1',
            userId: 'tx-user',
            action: 'apikey.create',
            resourceType: 'apikey',
            resourceName: record.name,
          });
          return record;
        });
      const allow = await refuseAuditInserts(store);
      try {
        await expect(mintAudited()).rejects.toThrow(/audit write refused/);
      } finally {
        await allow();
      }
      expect(await new ApiKeyStore(store.db).listForUser('tx-user', 'o1')).toEqual([]);
      const minted = await mintAudited();
      expect((await new ApiKeyStore(store.db).listForUser('tx-user', 'o1')).map((k) => k.id)).toEqual([minted.id]);
      const audited = await new AuditStore(store.db).list('o1', 200, 0);
      expect(audited.filter((e) => e.action === 'apikey.create').length).toBe(1);
    });

    it('binds roles per subject and scope, replacing the level on rebind', async () => {
      const bindings = new RoleBindingStore(store.db);
      const b = { orgId: 'o1', subjectType: 'user' as const, subjectId: 'u1', scope: 'cluster', scopeId: 'c1' };
      await bindings.bind({ ...b, level: 'read' });
      await bindings.bind({ ...b, level: 'admin' });
      await bindings.bind({
        orgId: 'o1',
        subjectType: 'team',
        subjectId: 't1',
        scope: 'org',
        scopeId: '',
        level: 'sync',
      });
      await bindings.bind({
        orgId: 'o2',
        subjectType: 'user',
        subjectId: 'u1',
        scope: 'org',
        scopeId: '',
        level: 'admin',
      });
      const mine = await bindings.forSubjects('o1', 'u1', []);
      expect(mine.map((x) => x.level)).toEqual(['admin']);
      const withTeam = await bindings.forSubjects('o1', 'u1', ['t1']);
      expect(withTeam.length).toBe(2);
      const first = mine[0];
      expect(await bindings.unbind('o2', first?.id ?? '')).toBe(false);
      expect(await bindings.unbind('o1', first?.id ?? '')).toBe(true);
      expect((await bindings.list('o1')).length).toBe(1);
    });

    it('keeps clusters per org and name, bumps the revision on change, and drops probes of an old revision', async () => {
      const clusters = new ClusterStore(store.db);
      const base = { orgId: 'o1', name: 'east', serverURL: 'https://10.0.0.1', namespaces: ['a', 'b'] };
      const east = await clusters.insert({ ...base, id: 'c1', kubeconfig: 'enc:v1:x' });
      expect(east).toMatchObject({ status: 'unknown', revision: 1, namespaces: ['a', 'b'], lastSeen: null });
      await expect(clusters.insert({ ...base, id: 'c2', kubeconfig: null })).rejects.toBeInstanceOf(ConflictError);
      await clusters.insert({ ...base, orgId: 'o2', id: 'c3', kubeconfig: null });
      const probe = { status: 'connected' as const, statusMessage: '', version: 'v1.35.4', nodeCount: 3 };
      await clusters.recordProbe('c1', 1, { ...probe, deploymentCount: 2, healthyDeployments: 1, lastSeen: 'now' });
      expect(await clusters.get('o1', 'east')).toMatchObject({ status: 'connected', nodeCount: 3, deploymentCount: 2 });
      const updated = await clusters.update('o1', 'east', { kubeconfig: null, namespaces: [] });
      expect(updated).toMatchObject({ revision: 2, kubeconfig: null, namespaces: [], status: 'unknown' });
      await clusters.recordProbe('c1', 1, { ...probe, nodeCount: 9, deploymentCount: 0, healthyDeployments: 0 });
      expect((await clusters.get('o1', 'east'))?.nodeCount).toBe(3);
      expect((await clusters.list('o1')).map((c) => c.id)).toEqual(['c1']);
      expect(await clusters.remove('o2', 'c1')).toBe(false);
      expect(await clusters.remove('o1', 'c1')).toBe(true);
      expect(await clusters.byId('c1')).toBeUndefined();
    });

    it('finds expired shells until they are ended', async () => {
      const shells = new ClusterShellStore(store.db);
      const shell = { orgId: 'o1', clusterId: 'c1', userId: 'u1', power: 'view' as const, createdAt: 't0' };
      const objects = [{ apiVersion: 'v1', kind: 'Pod', name: 'svc-shell-1', namespace: 'svc-shell' }];
      await shells.insert({ ...shell, id: 's1', objects, expiresAt: '2030-01-01T00:00:00.000Z' });
      await shells.insert({ ...shell, id: 's2', objects: [], expiresAt: '2030-01-02T00:00:00.000Z' });
      expect((await shells.expired(new Date('2030-01-01T12:00:00Z'))).map((s) => s.id)).toEqual(['s1']);
      expect((await shells.openOf('c1')).length).toBe(2);
      expect((await shells.expired(new Date('2030-01-01T12:00:00Z')))[0]?.objects).toEqual(objects);
      await shells.end('s1');
      expect(await shells.expired(new Date('2030-01-03T00:00:00Z'))).toMatchObject([{ id: 's2', endedAt: null }]);
    });

    it('applies a migration that lands after a later-numbered one was applied (issue-numbered names)', async () => {
      const fresh = await freshDatabase(kind);
      const db = openStore(fresh.config);
      try {
        await migrateStore(db);
        // As on a database that ran 0015 before 0012 existed.
        await db.db.schema.dropTable('secret_store').execute();
        await sql`delete from svc_migration where name = '0012_secret_stores'`.execute(db.db);
        await migrateStore(db);
        expect(await new SecretStoreStore(db.db).list('o1')).toEqual([]);
      } finally {
        await db.close();
        await fresh.drop();
      }
    });

    it('keeps secret stores unique by name per org, updates them and records tests', async () => {
      const stores = new SecretStoreStore(store.db);
      const now = new Date().toISOString();
      const record = {
        id: `sts_${kind}1`,
        orgId: 'o1',
        name: 'vault',
        type: 'vault',
        provider: 'openbao',
        config: { address: 'https://vault.example' },
        sealedCredentials: 'enc:v1:abc',
        status: 'untested',
        statusDetail: '',
        lastTestedAt: null,
        credentialsExpireAt: null,
        createdAt: now,
        updatedAt: now,
      };
      await stores.insert(record);
      await expect(stores.insert({ ...record, id: `sts_${kind}2` })).rejects.toThrow(ConflictError);
      await stores.insert({ ...record, id: `sts_${kind}3`, orgId: 'o2' });
      await stores.insert({ ...record, id: `sts_${kind}4`, name: 'other' });
      await expect(stores.update({ ...record, name: 'other' })).rejects.toThrow(
        'a secret store named "other" already exists',
      );
      expect(await stores.update({ ...record, config: { address: 'https://v2.example' } })).toBe(true);
      expect(
        await stores.recordTest('o1', record.id, {
          status: 'connected',
          statusDetail: 'ok',
          lastTestedAt: now,
          credentialsExpireAt: now,
        }),
      ).toBe(true);
      expect(await stores.get('o1', record.id)).toMatchObject({
        config: { address: 'https://v2.example' },
        status: 'connected',
        credentialsExpireAt: now,
        sealedCredentials: 'enc:v1:abc',
      });
      expect(await stores.get('o2', record.id)).toBeUndefined();
      expect((await stores.list('o1')).map((r) => r.name)).toEqual(['other', 'vault']);
      expect(await stores.getByName('o2', 'vault')).toMatchObject({ id: `sts_${kind}3` });
      expect(await stores.delete('o2', record.id)).toBe(false);
      expect(await stores.delete('o1', record.id)).toBe(true);
    });

    it('keeps registries per org with the password sealed for its row, and the notification token hashed', async () => {
      const registries = new RegistryStore(store.db, new Sealer(Buffer.alloc(32, 7)));
      const { record, notificationToken } = await registries.create({
        orgId: 'o1',
        name: 'hub',
        host: 'registry.example.com',
        insecure: false,
        ca: null,
        username: 'ci',
        password: 'p4ss',
      });
      expect(record).toMatchObject({ name: 'hub', hasPassword: true, status: 'untested', notificationsEnabled: true });
      const row = await store.db
        .selectFrom('registry')
        .selectAll()
        .where('id', '=', record.id)
        .executeTakeFirstOrThrow();
      expect(row.password).toMatch(/^enc:v1:/);
      expect(JSON.stringify(row)).not.toContain('p4ss');
      expect(JSON.stringify(row)).not.toContain(notificationToken);
      expect(await registries.endpoint('o1', 'hub')).toEqual({
        host: 'registry.example.com',
        insecure: false,
        credentials: { username: 'ci', password: 'p4ss' },
      });
      expect(await registries.endpoint('o2', 'hub')).toBeUndefined();
      expect((await registries.byNotificationToken(record.id, notificationToken))?.id).toBe(record.id);
      expect(await registries.byNotificationToken(record.id, `${notificationToken}x`)).toBeUndefined();
      const err = await registries
        .create({ orgId: 'o1', name: 'hub', host: 'h', insecure: false, ca: null, username: null, password: null })
        .catch((e: unknown) => e);
      expect(isUniqueViolation(err)).toBe(true);
      await registries.create({
        orgId: 'o2',
        name: 'hub',
        host: 'h',
        insecure: true,
        ca: null,
        username: null,
        password: null,
      });
      // A sealed password copied into another row does not open there.
      const other = await registries.create({
        orgId: 'o1',
        name: 'b',
        host: 'h',
        insecure: false,
        ca: null,
        username: 'u',
        password: 'x',
      });
      await store.db
        .updateTable('registry')
        .set({ password: row.password })
        .where('id', '=', other.record.id)
        .execute();
      await expect(registries.endpoint('o1', 'b')).rejects.toThrow(UnsealError);
      expect(await registries.update('o1', record.id, { password: null, username: null })).toMatchObject({
        hasPassword: false,
      });
      expect(await registries.delete('o2', record.id)).toBe(false);
      expect(await registries.delete('o1', record.id)).toBe(true);
    });

    it('applies a migration that sorts before the last applied one (issues land in any order)', async () => {
      const fresh = await freshDatabase(kind);
      const late = openStore(fresh.config);
      try {
        await migrateStore(late);
        // As on a database migrated before 0010 landed: 0015 applied, 0010 not.
        await late.db.schema.dropTable('registry').execute();
        await late.db.schema.dropTable('lease').execute();
        await sql`delete from svc_migration where name = '0010_registries_and_leases'`.execute(late.db);
        await migrateStore(late);
        expect(await late.db.selectFrom('registry').selectAll().execute()).toEqual([]);
        const names = await sql<{ name: string }>`select name from svc_migration order by name`.execute(late.db);
        expect(names.rows.map((r) => r.name)).toContain('0010_registries_and_leases');
      } finally {
        await late.close();
        await fresh.drop();
      }
    });

    it('gives a lease to one holder at a time until it expires or is released', async () => {
      const a = new DbLease(store.db, { name: 'poller', holder: 'a', ttlMs: 1000 });
      const b = new DbLease(store.db, { name: 'poller', holder: 'b', ttlMs: 1000 });
      const now = 1_800_000_000_000;
      expect(await a.tryAcquire(now)).toBe(true);
      expect(await b.tryAcquire(now + 10)).toBe(false);
      expect(await a.tryAcquire(now + 500)).toBe(true);
      expect(await b.tryAcquire(now + 1400)).toBe(false);
      expect(await b.tryAcquire(now + 1501)).toBe(true);
      expect(await a.tryAcquire(now + 1600)).toBe(false);
      await b.release();
      expect(await a.tryAcquire(now + 1700)).toBe(true);
    });
  });
}
