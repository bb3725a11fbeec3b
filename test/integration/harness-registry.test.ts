import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaTypes, type Registry, startRegistry } from '../harness/index.ts';

describe.each([
  { variant: 'anonymous', htpasswd: undefined },
  { variant: 'htpasswd', htpasswd: { user: 'ci', password: 'pushpull' } },
])('harness: OCI registry ($variant)', ({ htpasswd }) => {
  let registry: Registry;
  const auth = (): Record<string, string> =>
    htpasswd
      ? { authorization: `Basic ${Buffer.from(`${htpasswd.user}:${htpasswd.password}`).toString('base64')}` }
      : {};

  beforeAll(async () => {
    registry = await startRegistry(htpasswd ? { htpasswd } : {});
  });
  afterAll(async () => {
    await registry?.stop();
  });

  it('pushes an image with an index and resolves the tag to its digest through the registry API', async () => {
    const pushed = await registry.pushImage('team/web', '1.0.0');
    expect(pushed.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(pushed.digest).toBe(pushed.indexDigest);
    const res = await fetch(`${registry.url}/v2/team/web/manifests/1.0.0`, {
      method: 'HEAD',
      headers: { ...auth(), accept: `${mediaTypes.index}, ${mediaTypes.manifest}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('docker-content-digest')).toBe(pushed.digest);
    expect(res.headers.get('content-type')).toBe(mediaTypes.index);
    const index = (await (
      await fetch(`${registry.url}/v2/team/web/manifests/${pushed.digest}`, {
        headers: { ...auth(), accept: mediaTypes.index },
      })
    ).json()) as { manifests: { digest: string }[] };
    expect(index.manifests[0]?.digest).toBe(pushed.manifestDigest);
    const blob = await fetch(`${registry.url}/v2/team/web/blobs/${pushed.configDigest}`, { headers: auth() });
    expect(blob.status).toBe(200);
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
    const res = await fetch(`${registry.url}/v2/team/web/tags/list`);
    if (htpasswd) {
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    } else {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ name: 'team/web', tags: ['1.0.0'] });
    }
  });
});
