import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GitRepo } from '../harness/index.ts';
import { configMapYaml, createApp, getApp, kube, unique, useOperatorSuite, waitForApp } from './operator-support.ts';

const suite = useOperatorSuite('org-hook', { rateLimit: { burst: 12, perMinute: 1 } });
const { org } = suite;
const dest = suite.dest();
let repo: GitRepo;
let signed: GitRepo;
const SECRET = 'push-secret-value';

beforeAll(async () => {
  repo = await suite.git.createRepo(unique('hooked'), { 'm/a.yaml': configMapYaml('a') });
  signed = await suite.git.createRepo(unique('signed'), { 'm/a.yaml': configMapYaml('s') });
  await kube().apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'hook-secret', namespace: org },
    stringData: { secret: SECRET },
  });
  const app = (name: string, repoURL: string, extra: { branch?: string; enabled?: boolean; secretRef?: string } = {}) =>
    createApp(org, name, {
      source: { type: 'Git', git: { repoURL, path: 'm', ...(extra.branch ? { branch: extra.branch } : {}) } },
      destination: { namespace: dest },
      webhook: { enabled: extra.enabled ?? true, ...(extra.secretRef ? { secretRef: extra.secretRef } : {}) },
    });
  await app('match', repo.url);
  await app('other-branch', repo.url, { branch: 'dev' });
  await app('no-suffix', repo.url.replace(/\.git$/, ''));
  await app('disabled', repo.url, { enabled: false });
  await app('signed', signed.url, { secretRef: 'hook-secret' });
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const res = await fetch(`http://127.0.0.1:${suite.op.ports.webhook}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: raw,
  });
  return { status: res.status, body: (await res.json()) as { matched?: number; error?: string } };
}

const githubPush = (url: string, ref = 'refs/heads/main') => ({
  ref,
  after: 'a'.repeat(40),
  repository: { clone_url: url },
  pusher: { name: 'dev' },
});

describe('push receiver', () => {
  it('gitA: matches exactly (repoURL incl. .git, branch, webhook enabled) and triggers a Sync', async () => {
    const res = await post('/webhook/gitA', githubPush(repo.url));
    expect(res).toEqual({ status: 200, body: { matched: 1 } });
    const app = await waitForApp(org, 'match', 'webhook sync', (a) => a.status?.operationState?.phase === 'Succeeded');
    expect(app.spec.operation?.triggeredBy).toBe('webhook:gitA');
    expect(app.status?.operationState?.triggeredBy).toBe('webhook:gitA');
    expect(app.status?.revision).toBe(await repo.head());
    for (const name of ['other-branch', 'no-suffix', 'disabled'])
      expect((await getApp(org, name))?.spec.operation).toBeUndefined();
  });

  it('gitA: another branch matches only the App on that branch', async () => {
    expect((await post('/webhook/gitA', githubPush(repo.url, 'refs/heads/dev'))).body).toEqual({ matched: 1 });
    expect((await post('/webhook/gitA', githubPush(repo.url, 'refs/heads/feature'))).body).toEqual({ matched: 0 });
  });

  it('gitA: an App with a secretRef needs a valid X-Hub-Signature-256', async () => {
    const body = JSON.stringify(githubPush(signed.url));
    const good = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    expect((await post('/webhook/gitA', body)).body).toEqual({ matched: 0 });
    expect((await post('/webhook/gitA', body, { 'X-Hub-Signature-256': 'sha256=deadbeef' })).body).toEqual({
      matched: 0,
    });
    expect((await getApp(org, 'signed'))?.spec.operation).toBeUndefined();
    expect((await post('/webhook/gitA', body, { 'X-Hub-Signature-256': good })).body).toEqual({ matched: 1 });
    await waitForApp(org, 'signed', 'signed sync', (a) => a.status?.operationState?.phase === 'Succeeded');
  });

  it('gitB: parses GitLab push events and checks X-Gitlab-Token', async () => {
    const body = {
      object_kind: 'push',
      ref: 'refs/heads/main',
      after: 'b'.repeat(40),
      user_username: 'dev',
      project: { git_http_url: signed.url },
    };
    expect((await post('/webhook/gitB', body, { 'X-Gitlab-Token': 'wrong' })).body).toEqual({ matched: 0 });
    expect((await post('/webhook/gitB', body, { 'X-Gitlab-Token': SECRET })).body).toEqual({ matched: 1 });
  });

  it('webhook DoS (CVE-2025-59531/59537/59538): malformed bodies get 400, oversized 413, then the per-address rate limit answers 429', async () => {
    expect((await post('/webhook/gitA', '{not json')).status).toBe(400);
    expect((await post('/webhook/gitA', JSON.stringify({ pad: 'x'.repeat(1_200_000) }))).status).toBe(413);
    expect((await post('/webhook/gitA', { ref: 'refs/heads/main' })).status).toBe(400);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post('/webhook/gitA', { nothing: true })).status);
    expect(statuses).toContain(429);
    expect(statuses.at(-1)).toBe(429);
  });
});
