/**
 * The registry notification endpoint (beyond the contract; docs/api.md "Registry notifications"): a real registry
 * configured with the endpoint and the registry's notification token posts its push events; a pushed tag redeploys
 * the Follow Apps on it at once — the poll interval is an hour here, so nothing else could — audited `app.deploy`
 * with an empty user_id and trigger `notification`. Without the right token the endpoint answers 401.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type Registry, startRegistry } from '../harness/index.ts';
import { auditEntries } from './api-support.ts';
import { type ImageSuite, startImageSuite } from './image-support.ts';

type Json = Record<string, unknown>;

describe('registry notifications', () => {
  let suite: ImageSuite;
  let registry: Registry;
  let id = '';
  let token = '';

  beforeAll(async () => {
    suite = await startImageSuite('imgnotify', { listen: true, env: { SVC_TAG_POLL_INTERVAL: '1h' } });
    const port = await freePort();
    const created = await suite.org.api.call<Json>('POST', '/api/v1/registries', {
      cookie: suite.org.owner.cookie,
      body: { name: 'pushy', host: `127.0.0.1:${port}`, insecure: true },
    });
    expect(created.status).toBe(201);
    id = String(created.body['id']);
    token = String(created.body['notification_token']);
    registry = await startRegistry({
      port,
      notifications: { url: `${suite.serverURL}/api/v1/registries/${id}/notifications`, token },
    });
  });
  afterAll(async () => {
    await registry?.stop();
    await suite?.stop();
  });

  it('redeploys a Follow App at once when the registry reports a push of its tag', async () => {
    const first = await registry.pushImage('team/live', 'edge');
    const dest = await suite.imageApp('live', {
      registryRef: 'pushy',
      repository: 'team/live',
      tag: 'edge',
      tagPolicy: 'Follow',
    });
    await suite.post(dest, 'live', 'sync');
    await suite.settled('live', first.digest);

    const moved = await registry.pushImage('team/live', 'edge');
    const app = await suite.settled('live', moved.digest);
    expect(app.status?.operationState).toMatchObject({ kind: 'Deploy', triggeredBy: 'svc:tag-poller' });
    const [audit] = await auditEntries(suite.org.api, suite.org.owner, 'app.deploy', 'live');
    expect(audit).toMatchObject({
      user_id: '',
      details: { digest: moved.digest, previous: first.digest, trigger: 'notification' },
    });
  });

  it('answers 401 without the registry’s token, and 400 for a body that is not an event envelope', async () => {
    const url = `/api/v1/registries/${id}/notifications`;
    const events = { events: [{ action: 'push', target: { repository: 'team/live', tag: 'edge' } }] };
    const headers = (authorization?: string) => ({
      'content-type': 'application/vnd.docker.distribution.events.v1+json',
      ...(authorization ? { authorization } : {}),
    });
    for (const authorization of [undefined, 'Bearer svcrn_wrong', `Basic ${token}`]) {
      const res = await suite.org.api.call('POST', url, { headers: headers(authorization), body: events });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    const otherId = await suite.org.api.call('POST', '/api/v1/registries/reg_nope/notifications', {
      headers: headers(`Bearer ${token}`),
      body: events,
    });
    expect(otherId.status).toBe(401);
    const bad = await suite.org.api.call('POST', url, { headers: headers(`Bearer ${token}`), body: { nope: [] } });
    expect(bad.status).toBe(400);
    const ok = await suite.org.api.call<Json>('POST', url, { headers: headers(`Bearer ${token}`), body: events });
    // The App already runs the tag's digest: matched, nothing to deploy.
    expect(ok).toMatchObject({ status: 200, body: { matched: 1, deployed: [] } });
  });
});
