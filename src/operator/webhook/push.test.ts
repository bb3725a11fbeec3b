import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AppResource } from '../../core/app-schema.ts';
import { RateLimiter } from '../../net/rate-limit.ts';
import { matchesPush, parsePush, verifyDelivery } from './push.ts';

const app = (git: { repoURL: string; branch?: string }, enabled = true): AppResource => ({
  apiVersion: 'cd.svc.space/v1alpha1',
  kind: 'App',
  metadata: { name: 'a', namespace: 'org' },
  spec: { source: { type: 'Git', git }, destination: { namespace: 'd' }, webhook: { enabled } },
});

describe('parsePush', () => {
  it('reads GitHub and GitLab push payloads and refuses others', () => {
    expect(
      parsePush('gitA', {
        ref: 'refs/heads/main',
        after: 'x',
        repository: { clone_url: 'https://h/r.git' },
        pusher: { name: 'p' },
      }),
    ).toEqual({ urls: ['https://h/r.git'], ref: 'refs/heads/main', after: 'x', pusher: 'p' });
    expect(
      parsePush('gitB', { ref: 'refs/heads/main', project: { git_http_url: 'https://h/r.git' }, user_username: 'u' }),
    ).toEqual({ urls: ['https://h/r.git'], ref: 'refs/heads/main', after: '', pusher: 'u' });
    expect(parsePush('gitA', { ref: 'refs/heads/main' })).toBeUndefined();
    expect(parsePush('gitA', [])).toBeUndefined();
    expect(parsePush('gitB', { ref: 'refs/heads/main' })).toBeUndefined();
  });
});

describe('matchesPush', () => {
  const push = { urls: ['https://h/r.git'], ref: 'refs/heads/main', after: '', pusher: '' };
  it('needs the exact URL, the branch (default main) and webhook.enabled', () => {
    expect(matchesPush(app({ repoURL: 'https://h/r.git' }), push)).toBe(true);
    expect(matchesPush(app({ repoURL: 'https://h/r' }), push)).toBe(false);
    expect(matchesPush(app({ repoURL: 'https://h/r.git', branch: 'dev' }), push)).toBe(false);
    expect(matchesPush(app({ repoURL: 'https://h/r.git' }, false), push)).toBe(false);
  });
});

describe('verifyDelivery', () => {
  it('checks the GitHub HMAC and the GitLab token', () => {
    const body = Buffer.from('{"a":1}');
    const sig = `sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`;
    expect(verifyDelivery('gitA', 's3cret', body, sig)).toBe(true);
    expect(verifyDelivery('gitA', 'other', body, sig)).toBe(false);
    expect(verifyDelivery('gitA', 's3cret', body, undefined)).toBe(false);
    expect(verifyDelivery('gitB', 's3cret', body, 's3cret')).toBe(true);
    expect(verifyDelivery('gitB', 's3cret', body, 's3cre')).toBe(false);
  });
});

describe('RateLimiter', () => {
  it('allows a burst per key, then refills over time', () => {
    const rl = new RateLimiter({ burst: 2, perMinute: 60 });
    expect([rl.take('a', 0), rl.take('a', 0), rl.take('a', 0)]).toEqual([true, true, false]);
    expect(rl.take('b', 0)).toBe(true);
    expect(rl.take('a', 1000)).toBe(true);
    expect(rl.take('a', 1000)).toBe(false);
  });
});
