/**
 * Two API server replicas on one PostgreSQL database, one operator: the incident detector runs on one replica at a
 * time (a database lease) and the other takes over when it goes; both replicas' dispatchers share the delivery queue
 * (row claims with SKIP LOCKED). A broken App opens one incident, told once, and the surviving replica resolves it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { DETECTOR_LEASE } from '../../src/incidents/detector.ts';
import { openStore } from '../../src/store/database.ts';
import {
  type ChatSink,
  createPostgresDatabase,
  describeWith,
  type GitServer,
  postgresRequirement,
  startChatSink,
  startGitServer,
  waitUntil,
} from '../harness/index.ts';
import { createOrg, signUp, startTestApi, type TestApi, type TestUser } from './api-support.ts';
import {
  deleteNamespaces,
  deploymentYaml,
  startTestOperator,
  stuckDeploymentYaml,
  type TestOperator,
  unique,
  waitForApp,
} from './operator-support.ts';

type Json = Record<string, unknown>;

describeWith(postgresRequirement())('the operations loop across server replicas', () => {
  let db: { url: string; drop(): Promise<void> };
  let a: TestApi | undefined;
  let b: TestApi;
  let git: GitServer;
  let sink: ChatSink;
  let op: TestOperator;
  let owner: TestUser;
  let orgNs: string;
  const dest = unique('dest');

  beforeAll(async () => {
    db = await createPostgresDatabase();
    const shared = {
      mgmtKubeconfig: inject('mgmtKubeconfig'),
      databaseURL: db.url,
      authSecret: randomBytes(32).toString('hex'),
      env: { SVC_CREDENTIALS_KEY: randomBytes(32).toString('hex'), SVC_WEBHOOK_RETRY_BASE: '500ms' },
    };
    a = await startTestApi(shared);
    b = await startTestApi(shared);
    git = await startGitServer();
    sink = await startChatSink();
    owner = await signUp(a, 'owner');
    const slug = `replicas-${randomBytes(3).toString('hex')}`;
    orgNs = `org-${slug}`;
    await createOrg(a, owner, slug);
    op = await startTestOperator(orgNs);
  });
  afterAll(async () => {
    await op?.stop();
    await a?.close();
    await b?.close();
    await git?.stop();
    await sink?.stop();
    await deleteNamespaces(orgNs, dest);
    await db?.drop();
  });

  async function leaseHolder(): Promise<string | undefined> {
    const store = openStore({ kind: 'postgres', url: db.url });
    try {
      const row = await store.db
        .selectFrom('lease')
        .select('holder')
        .where('name', '=', DETECTOR_LEASE)
        .executeTakeFirst();
      return row?.holder;
    } finally {
      await store.close();
    }
  }

  it('detects on one replica, hands over, and tells each event once', async () => {
    const first = a as TestApi;
    await b.call('POST', '/api/v1/webhooks', {
      cookie: owner.cookie,
      body: { url: sink.url, events: ['incident.opened', 'incident.resolved'] },
    });
    const good = deploymentYaml('web');
    const repo = await git.createRepo(unique('replicas'), { 'm/web.yaml': good });
    const created = await first.call('POST', '/api/v1/apps', {
      cookie: owner.cookie,
      body: {
        name: 'web',
        namespace: dest,
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        sync_policy: { automated: true },
      },
    });
    expect(created.status).toBe(201);
    await waitForApp(orgNs, 'web', 'Healthy', (x) => x.status?.healthStatus === 'Healthy');
    const stuck = stuckDeploymentYaml('web');
    await repo.commit({ 'm/web.yaml': stuck }, 'break');
    const open = await waitUntil(
      async () =>
        (await b.call<{ incidents: Json[] }>('GET', '/api/v1/incidents?state=open&app=web', { cookie: owner.cookie }))
          .body.incidents[0],
      { what: 'an open incident', timeoutMs: 90_000 },
    );
    const id = open['id'] as string;
    await sink.waitFor((r) => r.headers['x-svc-event'] === 'incident.opened' && r.body.includes(id), 60_000);

    // Replica a started first and holds the lease; it goes away, and b takes the released lease and resolves.
    const before = await leaseHolder();
    await first.close();
    a = undefined;
    const after = await waitUntil(
      async () => {
        const h = await leaseHolder();
        return h && h !== before ? h : undefined;
      },
      { what: 'the other replica to take the lease', timeoutMs: 30_000 },
    );
    expect(after).not.toBe(before);
    await repo.commit({ 'm/web.yaml': good }, 'fix');
    await sink.waitFor((r) => r.headers['x-svc-event'] === 'incident.resolved' && r.body.includes(id), 120_000);
    const incident = await b.call<Json>('GET', `/api/v1/incidents/${id}`, { cookie: owner.cookie });
    expect(incident.body['state']).toBe('resolved');

    // One incident, each event delivered once, though two replicas watched the App and two dispatchers ran.
    const all = await b.call<{ incidents: Json[] }>('GET', '/api/v1/incidents?app=web', { cookie: owner.cookie });
    expect(all.body.incidents).toHaveLength(1);
    for (const type of ['incident.opened', 'incident.resolved']) {
      expect(
        sink.requests.filter((r) => r.headers['x-svc-event'] === type && r.body.includes(id)),
        type,
      ).toHaveLength(1);
    }
  });
});
