/**
 * A push re-runs an AppSet's Git generators at once (issue 27): the AppSet opts in through its template's
 * `spec.webhook` (enabled, and the Secret that signs deliveries), and the push receiver refreshes every AppSet
 * whose Git generator reads the pushed branch, fetching it anew. The AppSets' periodic resync is set to 10 minutes
 * here, and the generated Apps read another repository (no App matches the push), so only the push can make the new
 * App appear while the test waits.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_API_VERSION, APP_KIND, APPSET_KIND, APPSET_LABEL } from '../../src/core/app-names.ts';
import type { AppResource } from '../../src/core/app-schema.ts';
import type { GitRepo } from '../harness/index.ts';
import { waitUntil } from '../harness/index.ts';
import { configMapYaml, deleteNamespaces, kube, unique, useOperatorSuite } from './operator-support.ts';

const suite = useOperatorSuite('org-aspush', { appSetResyncMs: 600_000 });
const { org } = suite;
const prefix = unique('asp');
const SECRET = 'appset-push-secret';
let catalog: GitRepo;
let manifests: GitRepo;
afterAll(() => deleteNamespaces(...['a', 'b', 'c'].map((d) => `${prefix}-${d}`)));

beforeAll(async () => {
  // The catalog names the apps (one directory each); the manifests repository holds what they deploy.
  catalog = await suite.git.createRepo(unique('catalog'), { 'a/README.md': 'a\n', 'b/README.md': 'b\n' });
  manifests = await suite.git.createRepo(unique('manifests'), {
    'a/cm.yaml': configMapYaml('a'),
    'b/cm.yaml': configMapYaml('b'),
    'c/cm.yaml': configMapYaml('c'),
  });
  await kube().apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'appset-hook', namespace: org },
    stringData: { secret: SECRET },
  });
  await kube().create({
    apiVersion: APP_API_VERSION,
    kind: APPSET_KIND,
    metadata: { name: 'catalog', namespace: org },
    spec: {
      generators: [{ gitDirectories: { repoURL: catalog.url, directories: [{ path: '*' }] } }],
      template: {
        metadata: { name: 'cat-{{ path.basename }}' },
        spec: {
          source: { type: 'Git', git: { repoURL: manifests.url, path: '{{ path }}' } },
          destination: { namespace: `${prefix}-{{ path.basename }}` },
          syncPolicy: { automated: true },
          webhook: { enabled: true, secretRef: 'appset-hook' },
        },
      },
    },
  });
});

async function generated(): Promise<string[]> {
  const items = (await kube().list(
    APP_API_VERSION,
    APP_KIND,
    `${APPSET_LABEL}=catalog`,
    org,
  )) as unknown as AppResource[];
  return items.map((a) => a.metadata.name).sort();
}

async function post(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`http://127.0.0.1:${suite.op.ports.webhook}/webhook/gitA`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as { matched?: number } };
}

describe('push events and AppSets', () => {
  it('a signed push to a Git generator’s branch makes the new directory’s App at once; an unsigned one is refused', async () => {
    await waitUntil(async () => (await generated()).join() === 'cat-a,cat-b' || undefined, {
      what: 'the first two Apps',
      timeoutMs: 90_000,
    });
    await catalog.commit({ 'c/README.md': 'c\n' }, 'a new app');
    const body = JSON.stringify({
      ref: 'refs/heads/main',
      after: await catalog.head(),
      repository: { clone_url: catalog.url },
      pusher: { name: 'dev' },
    });
    // Unsigned, or signed with another secret: not matched, nothing refreshed.
    expect(await post(body)).toEqual({ status: 200, body: { matched: 0 } });
    expect(await post(body, { 'X-Hub-Signature-256': 'sha256=00' })).toEqual({ status: 200, body: { matched: 0 } });
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    // The AppSet alone matches: its Apps read the manifests repository, not the pushed one.
    expect(await post(body, { 'X-Hub-Signature-256': signature })).toEqual({ status: 200, body: { matched: 1 } });
    await waitUntil(async () => (await generated()).join() === 'cat-a,cat-b,cat-c' || undefined, {
      what: 'the pushed directory’s App (the AppSet resyncs only every 10 minutes)',
      timeoutMs: 60_000,
    });
  });
});
