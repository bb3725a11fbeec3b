/**
 * Outbound webhooks over HTTP against the harness's webhook sink: the secret shown once and sealed at rest, the
 * outbound policy at create time, signed deliveries a receiver verifies with the documented algorithm (and a replay
 * it rejects), retries with backoff against a failing receiver (500, 500, then 200), giving up, a slow receiver
 * holding up only its own deliveries, queued deliveries surviving a server restart, and no cross-org access to
 * webhooks or incidents. Events come from external incidents (POST /incidents); the App-driven ones are in
 * ops-incidents.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/database.ts';
import { type ChatSink, startChatSink, waitUntil } from '../harness/index.ts';
import {
  auditEntries,
  createOrg,
  expectEveryNotFound,
  signUp,
  signUpMember,
  startTestApi,
  type TestApi,
  type TestUser,
} from './api-support.ts';
import { ReceiverVerifier } from './webhook-verify.ts';

type Json = Record<string, unknown>;
interface DeliveryJson {
  id: string;
  event_type: string;
  state: string;
  attempts: number;
  response_code: number | null;
  attempt_log: { at: string; response_code: number | null; retry_at: string | null; error: string | null }[];
}

const RETRY = { SVC_WEBHOOK_RETRY_BASE: '300ms', SVC_WEBHOOK_RETRY_MAX: '5s', SVC_WEBHOOK_ATTEMPTS: '4' };

async function createWebhook(api: TestApi, user: TestUser, url: string, events: string[]) {
  const res = await api.call<Json & { id: string; secret: string }>('POST', '/api/v1/webhooks', {
    cookie: user.cookie,
    body: { url, events },
  });
  if (res.status !== 201) throw new Error(`webhook create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Opens an external incident; each call gets its own cause unless one is given (one open per cause). */
async function emit(api: TestApi, user: TestUser, title: string, cause = `Pager${randomBytes(4).toString('hex')}`) {
  const res = await api.call<Json & { id: string }>('POST', '/api/v1/incidents', {
    cookie: user.cookie,
    body: { title, cause, severity: 'critical', message: `${title}: paged` },
  });
  if (res.status !== 201) throw new Error(`emit: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function deliveries(api: TestApi, user: TestUser, webhookId: string): Promise<DeliveryJson[]> {
  const res = await api.call<{ deliveries: DeliveryJson[] }>('GET', `/api/v1/webhooks/${webhookId}/deliveries`, {
    cookie: user.cookie,
  });
  return res.body.deliveries;
}

describe('outbound webhooks', () => {
  let api: TestApi;
  let sink: ChatSink;
  let owner: TestUser;
  let viewer: TestUser;
  let stranger: TestUser;
  const logLines: string[] = [];

  beforeAll(async () => {
    sink = await startChatSink();
    api = await startTestApi({ env: RETRY, logLines });
    owner = await signUp(api, 'owner');
    const orgId = await createOrg(api, owner, 'hooks');
    viewer = await signUpMember(api, owner, orgId, 'viewer', 'viewer');
    stranger = await signUp(api, 'stranger');
    await createOrg(api, stranger, 'elsewhere');
  });
  afterAll(async () => {
    await api?.close();
    await sink?.stop();
  });

  it('shows the secret once, seals it at rest, and checks the URL against the outbound policy', async () => {
    const created = await createWebhook(api, owner, `${sink.url}/path-token`, ['incident.opened']);
    expect(created.secret).toMatch(/^whsec_/);
    expect(created).toMatchObject({ url: `${sink.url}/path-token`, events: ['incident.opened'] });
    const listed = await api.call<{ webhooks: Json[] }>('GET', '/api/v1/webhooks', { cookie: owner.cookie });
    expect(listed.body.webhooks.find((w) => w['id'] === created.id)).not.toHaveProperty('secret');
    // Members without webhook:manage see where, not the path (it often holds a token).
    const asViewer = await api.call<Json>('GET', `/api/v1/webhooks/${created.id}`, { cookie: viewer.cookie });
    expect(asViewer.body['url']).toBe(`${new URL(sink.url).origin}/…`);
    const store = openStore(api.database);
    try {
      const row = await store.db.selectFrom('webhook').select('secret').where('id', '=', created.id).executeTakeFirst();
      expect(row?.secret).toMatch(/^enc:v1:/);
      expect(row?.secret).not.toContain(created.secret.slice(6));
    } finally {
      await store.close();
    }
    // Not an http(s) URL without credentials: the document refuses it (400); an address the outbound policy
    // refuses: 422.
    for (const [status, url] of [
      [422, 'http://169.254.169.254/latest/meta-data'],
      [400, 'ftp://hooks.example/x'],
      [400, 'http://u:p@127.0.0.1/x'],
    ] as const) {
      const res = await api.call('POST', '/api/v1/webhooks', {
        cookie: owner.cookie,
        body: { url, events: ['incident.opened'] },
      });
      expect(res.status, url).toBe(status);
    }
    const badEvent = await api.call('POST', '/api/v1/webhooks', {
      cookie: owner.cookie,
      body: { url: sink.url, events: ['app.exploded'] },
    });
    expect(badEvent.status).toBe(400);
    expect(
      (
        await api.call('POST', '/api/v1/webhooks', {
          cookie: viewer.cookie,
          body: { url: sink.url, events: ['incident.opened'] },
        })
      ).status,
    ).toBe(403);
    expect(await auditEntries(api, owner, 'webhook.create', new URL(sink.url).host)).toEqual([
      expect.objectContaining({ user_id: owner.id, resource_id: created.id }),
    ]);
    expect(logLines.join('\n')).not.toContain(created.secret);
    await api.call('DELETE', `/api/v1/webhooks/${created.id}`, { cookie: owner.cookie });
  });

  it('signs deliveries so the receiver can verify them and reject a replay', async () => {
    const hook = await createWebhook(api, owner, `${sink.url}/signed`, ['incident.opened', 'incident.resolved']);
    const incident = await emit(api, owner, 'disk full', 'Pager');
    const got = await sink.waitFor((r) => r.path === '/hook/signed' && r.body.includes(incident.id));
    expect(got.headers['x-svc-event']).toBe('incident.opened');
    expect(got.headers['x-svc-delivery']).toMatch(/^dlv_/);
    expect(got.json).toMatchObject({
      type: 'incident.opened',
      org: { slug: 'hooks' },
      app: null,
      incident_id: incident.id,
      data: { cause: 'Pager', title: 'disk full', severity: 'critical', source: 'external' },
    });
    const receiver = new ReceiverVerifier(hook.secret);
    expect(receiver.verify(got.headers['x-svc-signature'], got.body)).toBe('ok');
    expect(receiver.verify(got.headers['x-svc-signature'], got.body)).toBe('replay');
    expect(new ReceiverVerifier(hook.secret).verify(got.headers['x-svc-signature'], `${got.body} `)).toBe(
      'bad-signature',
    );
    expect(new ReceiverVerifier('whsec_other').verify(got.headers['x-svc-signature'], got.body)).toBe('bad-signature');
    expect(
      new ReceiverVerifier(hook.secret).verify(got.headers['x-svc-signature'], got.body, Date.now() + 10 * 60_000),
    ).toBe('stale');

    // The test ping is signed the same way, logged as a delivery and audited.
    const test = await api.call<DeliveryJson>('POST', `/api/v1/webhooks/${hook.id}/test`, { cookie: owner.cookie });
    expect(test).toMatchObject({ status: 200, body: { event_type: 'webhook.test', state: 'delivered', attempts: 1 } });
    const ping = await sink.waitFor((r) => r.headers['x-svc-delivery'] === test.body.id);
    expect(receiver.verify(ping.headers['x-svc-signature'], ping.body)).toBe('ok');
    expect((await auditEntries(api, owner, 'webhook.test', hook['name'] as string)).length).toBe(1);
    await api.call('DELETE', `/api/v1/webhooks/${hook.id}`, { cookie: owner.cookie });
  });

  it('retries a failing receiver with growing, jittered delays and logs every attempt', async () => {
    const hook = await createWebhook(api, owner, `${sink.url}/flaky`, ['incident.opened']);
    sink.script([500, 500, 200]);
    const incident = await emit(api, owner, 'flaky receiver');
    const done = await waitUntil(
      async () => (await deliveries(api, owner, hook.id)).find((d) => d.state === 'delivered'),
      { what: 'the delivery to succeed', timeoutMs: 30_000 },
    );
    expect(done).toMatchObject({ event_type: 'incident.opened', attempts: 3, response_code: 200 });
    expect(done.attempt_log.map((a) => a.response_code)).toEqual([500, 500, 200]);
    const [first, second] = done.attempt_log;
    if (!first?.retry_at || !second?.retry_at) throw new Error('retries were not scheduled');
    // Backoff: the second retry was scheduled further out than the first (doubling beats ±20 % jitter).
    const wait1 = Date.parse(first.retry_at) - Date.parse(first.at);
    const wait2 = Date.parse(second.retry_at) - Date.parse(second.at);
    expect(wait2).toBeGreaterThan(wait1);
    // Each retry reached the receiver no earlier than scheduled, carrying the same body and delivery id.
    const received = sink.requests.filter((r) => r.path === '/hook/flaky' && r.body.includes(incident.id));
    expect(received.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
    expect(new Set(received.map((r) => r.headers['x-svc-delivery'])).size).toBe(1);
    expect(received[1]?.at.getTime()).toBeGreaterThanOrEqual(Date.parse(first.retry_at));
    expect(received[2]?.at.getTime()).toBeGreaterThanOrEqual(Date.parse(second.retry_at));

    // A receiver that keeps failing is given up after SVC_WEBHOOK_ATTEMPTS attempts.
    sink.respondWith(503);
    try {
      await emit(api, owner, 'dead receiver');
      const failed = await waitUntil(
        async () => (await deliveries(api, owner, hook.id)).find((d) => d.state === 'failed'),
        { what: 'the delivery to be given up', timeoutMs: 60_000 },
      );
      expect(failed.attempts).toBe(4);
      expect(failed.attempt_log.at(-1)).toMatchObject({ response_code: 503, retry_at: null });
    } finally {
      sink.respondWith(200);
    }
    await api.call('DELETE', `/api/v1/webhooks/${hook.id}`, { cookie: owner.cookie });
  });

  it('lets a slow receiver hold up only its own deliveries', async () => {
    const slowSink = await startChatSink();
    try {
      slowSink.slow(60_000);
      const slow = await createWebhook(api, owner, slowSink.url, ['incident.opened']);
      const fast = await createWebhook(api, owner, `${sink.url}/fast`, ['incident.opened']);
      const incident = await emit(api, owner, 'slow receiver');
      await slowSink.waitFor((r) => r.body.includes(incident.id));
      await sink.waitFor((r) => r.path === '/hook/fast' && r.body.includes(incident.id));
      const fastLog = await waitUntil(
        async () => (await deliveries(api, owner, fast.id)).find((d) => d.state === 'delivered'),
        { what: 'the fast delivery to be logged', timeoutMs: 15_000 },
      );
      expect(fastLog.attempts).toBe(1);
      // Meanwhile the slow receiver has not answered: its delivery is still in its first attempt.
      expect((await deliveries(api, owner, slow.id))[0]).toMatchObject({ state: 'pending', attempts: 0 });
      await api.call('DELETE', `/api/v1/webhooks/${slow.id}`, { cookie: owner.cookie });
      await api.call('DELETE', `/api/v1/webhooks/${fast.id}`, { cookie: owner.cookie });
    } finally {
      await slowSink.stop();
    }
  });

  it('reaches no other org’s webhooks or incidents on any route', async () => {
    const hook = await createWebhook(api, owner, `${sink.url}/private`, ['incident.opened']);
    const incident = await emit(api, owner, 'private incident');
    const theirHooks = await api.call<{ webhooks: Json[] }>('GET', '/api/v1/webhooks', { cookie: stranger.cookie });
    expect(theirHooks.body.webhooks).toEqual([]);
    const theirIncidents = await api.call<{ incidents: Json[] }>('GET', '/api/v1/incidents', {
      cookie: stranger.cookie,
    });
    expect(theirIncidents.body.incidents.map((i) => i['id'])).not.toContain(incident.id);
    const tries: Array<[string, string]> = [
      ['GET', `/api/v1/webhooks/${hook.id}`],
      ['DELETE', `/api/v1/webhooks/${hook.id}`],
      ['POST', `/api/v1/webhooks/${hook.id}/test`],
      ['GET', `/api/v1/webhooks/${hook.id}/deliveries`],
      ['GET', `/api/v1/incidents/${incident.id}`],
      ['POST', `/api/v1/incidents/${incident.id}/acknowledge`],
      ['POST', `/api/v1/incidents/${incident.id}/resolve`],
    ];

    await expectEveryNotFound(api, { cookie: stranger.cookie }, tries);
    expect(
      (await api.call<Json>('GET', `/api/v1/incidents/${incident.id}`, { cookie: owner.cookie })).body,
    ).toMatchObject({ state: 'open', acknowledged_at: null });
    await api.call('DELETE', `/api/v1/webhooks/${hook.id}`, { cookie: owner.cookie });
  });

  it('deduplicates external incidents, acknowledges and resolves them by hand, audited', async () => {
    const first = await emit(api, owner, 'queue backlog', 'Backlog');
    const again = await api.call<Json>('POST', '/api/v1/incidents', {
      cookie: owner.cookie,
      body: { title: 'queue backlog again', cause: 'Backlog' },
    });
    expect(again).toMatchObject({ status: 200, body: { id: first.id, created: false } });
    expect((await api.call('POST', '/api/v1/incidents', { cookie: viewer.cookie, body: { title: 'x' } })).status).toBe(
      403,
    );
    const ack = await api.call<Json>('POST', `/api/v1/incidents/${first.id}/acknowledge`, { cookie: owner.cookie });
    expect(ack).toMatchObject({ status: 200, body: { acknowledged_by: owner.id } });
    expect((await api.call('POST', `/api/v1/incidents/${first.id}/acknowledge`, { cookie: owner.cookie })).status).toBe(
      409,
    );
    const resolved = await api.call<Json>('POST', `/api/v1/incidents/${first.id}/resolve`, {
      cookie: owner.cookie,
      body: { resolution: 'drained' },
    });
    expect(resolved).toMatchObject({ status: 200, body: { state: 'resolved', resolution: 'drained' } });
    const open = await api.call<{ incidents: Json[] }>('GET', '/api/v1/incidents?state=open', {
      cookie: viewer.cookie,
    });
    expect(open.body.incidents.map((i) => i['id'])).not.toContain(first.id);
    const detail = await api.call<{ timeline: Json[] }>('GET', `/api/v1/incidents/${first.id}`, {
      cookie: viewer.cookie,
    });
    expect(detail.body.timeline.filter((e) => e['kind'] === 'event').map((e) => e['type'])).toEqual([
      'incident.opened',
      'incident.acknowledged',
      'incident.resolved',
    ]);
    for (const action of ['incident.emit', 'incident.acknowledge', 'incident.resolve']) {
      expect(
        (await auditEntries(api, owner, action, 'queue backlog')).map((e) => e['user_id']),
        action,
      ).toEqual([owner.id]);
    }
  });
});

describe('queued deliveries across a server restart', () => {
  it('are sent by the next server from the database', async () => {
    const sink = await startChatSink();
    const dir = mkdtempSync(join(tmpdir(), 'svc-hooks-restart-'));
    const shared = {
      databaseURL: `sqlite:${join(dir, 'svc.db')}`,
      authSecret: randomBytes(32).toString('hex'),
      env: { SVC_CREDENTIALS_KEY: randomBytes(32).toString('hex'), SVC_WEBHOOK_RETRY_BASE: '3s' },
    };
    let second: TestApi | undefined;
    try {
      const first = await startTestApi(shared);
      const owner = await signUp(first, 'owner');
      await createOrg(first, owner, 'restart');
      const hook = await createWebhook(first, owner, sink.url, ['incident.opened']);
      sink.respondWith(500);
      await emit(first, owner, 'before restart');
      await waitUntil(async () => (await deliveries(first, owner, hook.id))[0]?.attempts === 1, {
        what: 'the first attempt to fail',
        timeoutMs: 15_000,
      });
      await first.close();
      sink.respondWith(200);
      second = await startTestApi(shared);
      const server = second;
      const delivered = await waitUntil(
        async () => (await deliveries(server, owner, hook.id)).find((d) => d.state === 'delivered'),
        { what: 'the restarted server to deliver', timeoutMs: 30_000 },
      );
      expect(delivered.attempt_log.map((a) => a.response_code)).toEqual([500, 200]);
      expect(
        new ReceiverVerifier(hook.secret).verify(
          sink.requests.at(-1)?.headers['x-svc-signature'],
          sink.requests.at(-1)?.body ?? '',
        ),
      ).toBe('ok');
    } finally {
      await second?.close();
      await sink.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
