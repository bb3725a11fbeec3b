import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest, mediaTypes, type Registry, startRegistry } from '../harness/index.ts';

describe.each([
  { variant: 'anonymous, http', htpasswd: undefined, tls: false },
  { variant: 'htpasswd, http', htpasswd: { user: 'ci', password: 'pushpull' }, tls: false },
  { variant: 'htpasswd, https', htpasswd: { user: 'ci', password: 'pushpull' }, tls: true },
])('harness: OCI registry ($variant)', ({ htpasswd, tls }) => {
  let registry: Registry;
  const auth = (): Record<string, string> =>
    htpasswd
      ? { authorization: `Basic ${Buffer.from(`${htpasswd.user}:${htpasswd.password}`).toString('base64')}` }
      : {};
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    httpRequest(`${registry.url}${path}`, { method, headers, ca: registry.caPEM });

  beforeAll(async () => {
    registry = await startRegistry({ ...(htpasswd ? { htpasswd } : {}), tls });
  });
  afterAll(async () => {
    await registry?.stop();
  });

  it('pushes an image with an index and resolves the tag to its digest through the registry API', async () => {
    expect(registry.url.startsWith(tls ? 'https://' : 'http://')).toBe(true);
    const pushed = await registry.pushImage('team/web', '1.0.0');
    expect(pushed.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(pushed.digest).toBe(pushed.indexDigest);
    const head = await get(
      '/v2/team/web/manifests/1.0.0',
      { ...auth(), accept: `${mediaTypes.index}, ${mediaTypes.manifest}` },
      'HEAD',
    );
    expect(head.status).toBe(200);
    expect(head.header('docker-content-digest')).toBe(pushed.digest);
    expect(head.header('content-type')).toBe(mediaTypes.index);
    const index = JSON.parse(
      (await get(`/v2/team/web/manifests/${pushed.digest}`, { ...auth(), accept: mediaTypes.index })).text(),
    ) as { manifests: { digest: string }[] };
    expect(index.manifests[0]?.digest).toBe(pushed.manifestDigest);
    expect((await get(`/v2/team/web/blobs/${pushed.configDigest}`, auth())).status).toBe(200);
  });

  it('moves a tag: a new push and an explicit re-tag change what the tag resolves to', async () => {
    const first = await registry.pushImage('team/api', 'stable', { index: false });
    expect(first.indexDigest).toBeUndefined();
    expect(await registry.resolve('team/api', 'stable')).toBe(first.digest);
    const second = await registry.pushImage('team/api', 'stable');
    expect(second.digest).not.toBe(first.digest);
    expect(await registry.resolve('team/api', 'stable')).toBe(second.digest);
    await registry.tag('team/api', 'stable', first.digest);
    expect(await registry.resolve('team/api', 'stable')).toBe(first.digest);
  });

  it('enforces its access mode: anonymous pulls work only without htpasswd, where a Basic challenge answers', async () => {
    const res = await get('/v2/team/web/tags/list');
    if (htpasswd) {
      expect(res.status).toBe(401);
      expect(res.header('www-authenticate')).toMatch(/^Basic realm=/);
    } else {
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text())).toEqual({ name: 'team/web', tags: ['1.0.0'] });
    }
  });
});
