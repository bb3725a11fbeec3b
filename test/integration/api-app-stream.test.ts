/**
 * GET /apps with a query (filters, sort, keyset pages) and GET /apps/stream (server-sent events of App changes)
 * against a real kube-apiserver, the stream read over a real loopback listener: one cache-fed fan-out, events
 * filtered per caller (org and deployment scope), resumable with Last-Event-ID or ?since=, heartbeats, and a
 * revoked session ending its stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseStream, waitUntil } from '../harness/index.ts';
import { createOrg, mintKey, type OrgApi, signUp, startOrgApi, type TestApi, type TestUser } from './api-support.ts';

type Json = Record<string, unknown>;
type Page = { apps: Json[]; total: number; next_cursor: string | null; resource_version: string };
const gitApp = (name: string, namespace: string) => ({
  name,
  namespace,
  source: { type: 'Git', git: { repoURL: `https://git.example.test/team/${name}.git` } },
});

describe('app list queries and the App event stream', () => {
  let org: OrgApi;
  let api: TestApi;
  let owner: TestUser;
  let blueKey = '';
  let base = '';
  const streams: SseStream[] = [];

  const open = async (user: TestUser | string, query = '', headers: Record<string, string> = {}) => {
    const auth: Record<string, string> =
      typeof user === 'string' ? { authorization: `Bearer ${user}` } : { cookie: user.cookie };
    const s = await openSse(`${base}/api/v1/apps/stream${query}`, { ...auth, ...headers });
    streams.push(s);
    return s;
  };
  const create = async (name: string, namespace: string) => {
    const res = await api.call('POST', '/api/v1/apps', { cookie: owner.cookie, body: gitApp(name, namespace) });
    expect(res.status).toBe(201);
  };
  const appEvent =
    (name: string, type = 'upsert') =>
    (e: { event: string; data: string }) =>
      e.event === 'app' && JSON.parse(e.data).type === type && JSON.parse(e.data).app.name === name;

  beforeAll(async () => {
    org = await startOrgApi('stream', undefined, { stream: { heartbeatMs: 300, reauthMs: 300 } });
    ({ api, owner } = org);
    // A caller who may read one deployment only (`<cluster>/<namespace>` = `/blue`): a key with that ceiling.
    blueKey = (await mintKey(api, { cookie: owner.cookie }, { role: 'read', scope: 'deployment', scope_id: '/blue' }))
      .key;
    await org.api.app.listen({ host: '127.0.0.1', port: 0 });
    const address = org.api.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    for (const [name, ns] of [
      ['alpha', 'blue'],
      ['bravo', 'green'],
      ['charlie', 'blue'],
      ['delta', 'green'],
      ['echo', 'blue'],
    ] as const) {
      await create(name, ns);
    }
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await api?.close();
  });

  it('keeps the contract answer without a query, and pages, filters and sorts with one', async () => {
    const all = await api.call<Json>('GET', '/api/v1/apps', { cookie: owner.cookie });
    expect(Object.keys(all.body)).toEqual(['apps']);
    expect((all.body['apps'] as Json[]).map((a) => a['name'])).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);

    const first = await api.call<Page>('GET', '/api/v1/apps?limit=2', { cookie: owner.cookie });
    expect(first.body.apps.map((a) => a['name'])).toEqual(['alpha', 'bravo']);
    expect(first.body.total).toBe(5);
    expect(first.body.resource_version).toMatch(/^[1-9][0-9]*$/);
    const second = await api.call<Page>(`GET`, `/api/v1/apps?limit=2&cursor=${first.body.next_cursor}`, {
      cookie: owner.cookie,
    });
    expect(second.body.apps.map((a) => a['name'])).toEqual(['charlie', 'delta']);

    const blue = await api.call<Page>('GET', '/api/v1/apps?namespace=blue&q=ar&sort=-name', { cookie: owner.cookie });
    expect(blue.body.apps.map((a) => a['name'])).toEqual(['charlie']);
    const unknown = await api.call<Page>('GET', '/api/v1/apps?sync=Unknown&health=Unknown', { cookie: owner.cookie });
    expect(unknown.body.total).toBe(5);

    const bad = await api.call<Json>('GET', '/api/v1/apps?sync=Fine', { cookie: owner.cookie });
    expect(bad.status).toBe(400);
    expect(bad.body['error']).toMatch(/^sync must match the pattern .*comma-separated sync statuses/);
    const badLimit = await api.call<Json>('GET', '/api/v1/apps?limit=abc', { cookie: owner.cookie });
    expect(badLimit.status).toBe(400);
  });

  it('filters a page by what the caller may read', async () => {
    const page = await api.call<Page>('GET', '/api/v1/apps?limit=10', { key: blueKey });
    expect(page.status).toBe(200);
    expect(page.body.apps.map((a) => a['name'])).toEqual(['alpha', 'charlie', 'echo']);
  });

  it('streams changes to every client from one fan-out, each seeing only what it may read', async () => {
    const page = await api.call<Page>('GET', '/api/v1/apps?limit=1', { cookie: owner.cookie });
    const ownerStream = await open(owner, `?since=${page.body.resource_version}`);
    expect(ownerStream.status).toBe(200);
    const scopedStream = await open(blueKey);
    await ownerStream.next((e) => e.event === 'ready', 'ready');
    await scopedStream.next((e) => e.event === 'ready', 'ready');

    await create('foxtrot', 'green');
    await create('golf', 'blue');
    const golf = await ownerStream.next(appEvent('golf'), 'golf upsert');
    const fox = await ownerStream.next(appEvent('foxtrot'), 'foxtrot upsert');
    expect(Number(golf.id)).toBeGreaterThan(Number(fox.id));
    expect(JSON.parse(golf.data).app).toMatchObject({ name: 'golf', namespace: 'blue', sync_status: 'Unknown' });
    await scopedStream.next(appEvent('golf'), 'golf upsert for the key scoped to /blue');
    // The scoped key saw golf (blue), which was created after foxtrot (green): foxtrot never reached it.
    expect(scopedStream.events.some(appEvent('foxtrot'))).toBe(false);

    const sync = await api.call('POST', '/api/v1/apps/blue/golf/sync', { cookie: owner.cookie });
    expect(sync.status).toBe(200);
    await ownerStream.next((e) => appEvent('golf')(e) && Number(e.id) > Number(golf.id), 'golf operation change');
    await waitUntil(() => ownerStream.comments > 0, { what: 'a heartbeat comment' });
  });

  it('resumes after the last event id, replaying what the client missed', async () => {
    const first = await open(owner);
    await first.next((e) => e.event === 'ready', 'ready');
    await create('hotel', 'green');
    const hotel = await first.next(appEvent('hotel'), 'hotel');
    first.close();
    await create('india', 'green');
    const del = await api.call('DELETE', '/api/v1/apps/green/hotel', { cookie: owner.cookie });
    expect(del.status).toBe(200);

    const resumed = await open(owner, '', { 'last-event-id': String(hotel.id) });
    await resumed.next(appEvent('india'), 'india replayed');
    await resumed.next(appEvent('hotel', 'delete'), 'hotel deletion replayed');
    const ready = await resumed.next((e) => e.event === 'ready', 'ready');
    expect(resumed.events.indexOf(ready)).toBeGreaterThan(0);
    expect(resumed.events.some((e) => e.event === 'reset')).toBe(false);

    const tooOld = await open(owner, '?since=1');
    await tooOld.next((e) => e.event === 'reset', 'reset for a version older than the buffer');
  });

  it('answers errors as JSON before streaming, and ends a stream whose session was revoked', async () => {
    const anonymous = await openSse(`${base}/api/v1/apps/stream`);
    expect(anonymous.status).toBe(401);
    const malformed = await openSse(`${base}/api/v1/apps/stream?since=abc`, { cookie: owner.cookie });
    expect(malformed.status).toBe(400);
    const outsider = await signUp(api, 'outsider');
    await createOrg(api, outsider, `stream-out-${org.suffix}`);
    const outsiderStream = await open(outsider);
    await outsiderStream.next((e) => e.event === 'ready', 'ready');
    const ownerView = await open(owner);
    await ownerView.next((e) => e.event === 'ready', 'ready');
    await create('juliet', 'blue');
    await ownerView.next(appEvent('juliet'), 'juliet');
    expect(outsiderStream.events.some((e) => e.event === 'app')).toBe(false);

    const sessions = await api.call<{ sessions: { id: string; current: boolean }[] }>('GET', '/api/v1/auth/sessions', {
      cookie: outsider.cookie,
    });
    const current = sessions.body.sessions.find((s) => s.current);
    await api.call('DELETE', `/api/v1/auth/sessions/${current?.id}`, { cookie: outsider.cookie });
    await outsiderStream.ended;
  });
});
