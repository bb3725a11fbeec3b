/**
 * A rolling sync across an AppSet (issue 27 item 2), with the real operator, API server (its incident detector) and
 * the harness's git server: a list generator makes `web-staging` (env: staging) and `web-prod` (env: prod) from one
 * repository, in two steps. A pushed commit syncs staging first and prod only once staging is Synced and Healthy at
 * it; a commit whose staging Deployment can never be scheduled stops the rollout at step 1 (prod stays at the
 * previous revision), the AppSet's status (the API's view, `svc appset get`) says why, and an incident opens for the
 * App; a next commit whose staging Deployment the API server refuses stops it again as a failed sync (a SyncFailed
 * incident opens), which MCP's appset_get reports. The AppSet is created from a manifest with the real CLI.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { APP_API_VERSION, APP_KIND, APPSET_KIND } from '../../src/core/app-names.ts';
import type { AppResource } from '../../src/core/app-schema.ts';
import type { AppSetResource, AppSetSpec } from '../../src/core/appset-schema.ts';
import { connect } from '../../src/kube/index.ts';
import { type GitRepo, type GitServer, runCli, startGitServer, waitUntil } from '../harness/index.ts';
import { mintKey, type OrgApi, startOrgApi } from './api-support.ts';
import { connectMcp } from './mcp-support.ts';
import {
  deleteNamespaces,
  deploymentYaml,
  startTestOperator,
  stuckDeploymentYaml,
  type TestOperator,
  unique,
} from './operator-support.ts';

type Json = Record<string, unknown>;

describe('AppSet rolling sync', () => {
  let org: OrgApi;
  let git: GitServer;
  let op: TestOperator;
  let repo: GitRepo;
  let home: string;
  let env: Record<string, string>;
  const prefix = unique('roll');
  const kube = () => connect({ kubeconfigPath: inject('mgmtKubeconfig') }).objects;

  beforeAll(async () => {
    git = await startGitServer();
    org = await startOrgApi('roll');
    op = await startTestOperator(org.orgNs, { appSetResyncMs: 2_000 });
    await org.api.app.listen({ port: 0, host: '127.0.0.1' });
    const address = org.api.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const key = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'admin' });
    home = mkdtempSync(join(tmpdir(), 'svc-roll-'));
    env = { PATH: process.env['PATH'] ?? '', HOME: home, SVC_SERVER: `http://127.0.0.1:${port}`, SVC_API_KEY: key.key };
    repo = await git.createRepo(unique('fleet'), {
      'staging/web.yaml': deploymentYaml('web', 1, 'nginx:1.0'),
      'prod/web.yaml': deploymentYaml('web', 1, 'nginx:1.0'),
    });
  });
  afterAll(async () => {
    await op?.stop();
    await git?.stop();
    await org?.api.close();
    if (home) rmSync(home, { recursive: true, force: true });
    await deleteNamespaces(org.orgNs, `${prefix}-staging`, `${prefix}-prod`);
  });

  const app = async (name: string) =>
    (await kube().get({ apiVersion: APP_API_VERSION, kind: APP_KIND, namespace: org.orgNs, name })) as unknown as
      | AppResource
      | undefined;
  const appSet = async () =>
    (await kube().get({
      apiVersion: APP_API_VERSION,
      kind: APPSET_KIND,
      namespace: org.orgNs,
      name: 'web',
    })) as unknown as AppSetResource | undefined;
  const atRevision = (a: AppResource | undefined, rev: string) =>
    a?.status?.revision === rev && a.status.syncStatus === 'Synced' && a.status.healthStatus === 'Healthy';

  /**
   * Polls both Apps until `done`, checking at every read that prod never applied `rev` before staging was Synced
   * and Healthy at it; answers the last read.
   */
  async function watchRollout(rev: string, done: (s?: AppResource, p?: AppResource) => boolean, what: string) {
    let last = '';
    let stagingReady = false;
    try {
      return await waitUntil(
        async () => {
          const [s, p] = [await app('web-staging'), await app('web-prod')];
          stagingReady ||= atRevision(s, rev);
          last = JSON.stringify({ s: s?.status, p: p?.status, set: (await appSet())?.status });
          if (p?.status?.revision === rev && !stagingReady)
            throw new Error(`prod applied ${rev} before staging: ${last}`);
          return done(s, p) ? { s, p } : undefined;
        },
        { what, timeoutMs: 120_000, intervalMs: 250 },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\nlast: ${last}`);
    }
  }

  it('syncs staging first and prod after it; a Degraded staging, then a failed sync, stops the rollout with an incident', async () => {
    const spec: AppSetSpec = {
      generators: [{ list: { elements: [{ env: 'staging' }, { env: 'prod' }] } }],
      template: {
        metadata: { name: 'web-{{ env }}', labels: { env: '{{ env }}' } },
        spec: {
          source: { type: 'Git', git: { repoURL: repo.url, path: '{{ env }}' } },
          destination: { namespace: `${prefix}-{{ env }}` },
          // Under rollingSync the AppSet syncs the Apps: their own automated sync is turned off.
          syncPolicy: { automated: true },
        },
      },
      strategy: {
        rollingSync: {
          steps: [
            { matchExpressions: [{ key: 'env', operator: 'In', values: ['staging'] }] },
            { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }], maxUnavailable: '100%' },
          ],
        },
      },
    };
    // Created from an AppSet manifest through the real CLI (its strategy carried into the API's payload).
    const file = join(home, 'appset.json');
    writeFileSync(
      file,
      JSON.stringify({ apiVersion: APP_API_VERSION, kind: 'AppSet', metadata: { name: 'web' }, spec }),
    );
    const made = await runCli(['appset', 'create', '-f', file], env);
    expect(made.status, made.stderr).toBe(0);

    // The first revision rolls out too (the Apps start OutOfSync), staging first.
    const first = await repo.head();
    await watchRollout(first, (s, p) => atRevision(s, first) && atRevision(p, first), 'first revision rolled out');
    const staging = await app('web-staging');
    expect(staging?.spec.syncPolicy?.automated).toBe(false);
    expect(staging?.status?.operationState?.triggeredBy).toBe('appset:web');
    await waitUntil(async () => (await appSet())?.status?.rollout?.currentStep === 0, { what: 'rollout done' });

    // A new commit: staging syncs first, prod only once staging is Synced and Healthy at it.
    const second = await repo.commit(
      {
        'staging/web.yaml': deploymentYaml('web', 1, 'nginx:1.1'),
        'prod/web.yaml': deploymentYaml('web', 1, 'nginx:1.1'),
      },
      'nginx 1.1',
    );
    const rolled = await watchRollout(second, (s, p) => atRevision(s, second) && atRevision(p, second), 'second');
    const stagingDone = Date.parse(rolled.s?.status?.operationState?.finishedAt ?? '');
    const prodAsked = Date.parse(rolled.p?.status?.operationState?.initiatedAt ?? '');
    expect(rolled.p?.status?.operationState?.triggeredBy).toBe('appset:web');
    expect(prodAsked).toBeGreaterThanOrEqual(stagingDone);

    // A commit whose staging workload can never be ready: the rollout stops at step 1, prod stays at `second`.
    const third = await repo.commit(
      { 'staging/web.yaml': stuckDeploymentYaml('web'), 'prod/web.yaml': deploymentYaml('web', 1, 'nginx:1.2') },
      'stuck staging',
    );
    const stopped = await waitUntil(
      async () => {
        const set = await appSet();
        return set?.status?.rollout?.stopped ? set : undefined;
      },
      { what: 'rollout stopped', timeoutMs: 120_000 },
    );
    expect(stopped.status?.rollout).toMatchObject({
      currentStep: 1,
      steps: [
        { step: 1, state: 'Stopped', apps: ['web-staging'] },
        { step: 2, state: 'Pending', apps: ['web-prod'] },
      ],
      stopped: { step: 1, app: 'web-staging', reason: expect.stringMatching(/^Degraded/) },
    });
    expect((await app('web-staging'))?.status?.revision).toBe(third);
    const prod = await app('web-prod');
    expect(prod?.status?.observedRevision).toBe(third);
    expect(prod?.status?.revision).toBe(second);
    expect(prod?.status?.syncStatus).toBe('OutOfSync');

    const view = await org.api.call<Json>('GET', '/api/v1/appsets/web', { cookie: org.owner.cookie });
    expect(view.body['rollout']).toMatchObject({
      current_step: 1,
      stopped: { step: 1, app: 'web-staging', reason: expect.stringMatching(/^Degraded/) },
    });

    const got = await runCli(['appset', 'get', 'web'], env);
    expect(got.stdout).toMatch(
      /Rolling sync:\s+at step 1; step 1 Stopped: web-staging \(current\); step 2 Pending: web-prod; stopped at step 1 by web-staging: Degraded/,
    );

    // The incident loop opens an incident for the Degraded App.
    const incident = await waitUntil(
      async () => {
        const res = await org.api.call<{ incidents: Json[] }>('GET', '/api/v1/incidents?state=open&app=web-staging', {
          cookie: org.owner.cookie,
        });
        return res.body.incidents.find((i) => i['cause'] === 'Degraded');
      },
      { what: 'incident opened', timeoutMs: 60_000 },
    );
    expect(incident['title']).toContain('web-staging is Degraded');
    // Still stopped: prod was never synced to the bad revision.
    expect((await app('web-prod'))?.status?.revision).toBe(second);

    // A fix for staging whose sync fails (the API server refuses the Deployment): the new revision is synced, since
    // it may be the fix, and its failed sync stops the rollout again, this time saying the sync failed.
    const fourth = await repo.commit(
      {
        'staging/web.yaml': deploymentYaml('web', 1, 'nginx:1.3').replace('replicas: 1', 'replicas: -1'),
        'prod/web.yaml': deploymentYaml('web', 1, 'nginx:1.3'),
      },
      'refused staging',
    );
    const failed = await waitUntil(
      async () => {
        const set = await appSet();
        return set?.status?.rollout?.stopped?.reason.startsWith('SyncFailed') ? set : undefined;
      },
      { what: 'rollout stopped by the failed sync', timeoutMs: 120_000 },
    );
    expect(failed.status?.rollout).toMatchObject({
      currentStep: 1,
      steps: [{ state: 'Stopped' }, { state: 'Pending' }],
      stopped: { step: 1, app: 'web-staging', reason: expect.stringMatching(/^SyncFailed: .*replicas/) },
    });
    const refused = await app('web-staging');
    expect(refused?.status?.operationState).toMatchObject({ phase: 'Failed', revision: fourth });
    expect(refused?.status?.operationState?.triggeredBy).toBe('appset:web');
    expect((await app('web-prod'))?.status?.revision).toBe(second);
    // The incident loop opens a SyncFailed incident for it, as it opened a Degraded one.
    await waitUntil(
      async () => {
        const res = await org.api.call<{ incidents: Json[] }>('GET', '/api/v1/incidents?state=open&app=web-staging', {
          cookie: org.owner.cookie,
        });
        return res.body.incidents.find((i) => i['cause'] === 'SyncFailed');
      },
      { what: 'SyncFailed incident opened', timeoutMs: 60_000 },
    );

    // MCP appset_get tells where the rollout is and why it stopped (the official SDK client over Streamable HTTP).
    const mcp = await connectMcp(env['SVC_SERVER'] as string, env['SVC_API_KEY'] as string);
    try {
      const result = await mcp.call('appset_get', { name: 'web' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent?.['rollout']).toMatchObject({
        current_step: 1,
        steps: [
          { step: 1, state: 'Stopped', apps: ['web-staging'] },
          { step: 2, state: 'Pending', apps: ['web-prod'] },
        ],
        stopped: { step: 1, app: 'web-staging', reason: expect.stringMatching(/^SyncFailed/) },
      });
    } finally {
      await mcp.close();
    }
    expect((await app('web-prod'))?.status?.revision).toBe(second);
  });
});
