/**
 * The API server's /readyz: ready (200) once migrations ran (the server serves nothing before) and, with a
 * management cluster, once the App cache has its first list; 503 with `{"error"}` until then, so a load balancer
 * sends no traffic to a replica whose cluster is unreachable.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { freePort, waitUntil } from '../harness/index.ts';
import { startTestApi, type TestApi } from './api-support.ts';

const apis: TestApi[] = [];
const dir = mkdtempSync(join(tmpdir(), 'svc-readyz-'));
afterAll(async () => {
  await Promise.all(apis.map((a) => a.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(mgmtKubeconfig?: string): Promise<TestApi> {
  const api = await startTestApi(mgmtKubeconfig ? { mgmtKubeconfig } : {});
  apis.push(api);
  return api;
}

describe('GET /readyz', () => {
  it('is ready once migrated when no management cluster is configured', async () => {
    const api = await start();
    expect(await api.call('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it('is not ready while the App cache cannot list (an unreachable management cluster)', async () => {
    const config = parse(readFileSync(inject('mgmtKubeconfig'), 'utf8'));
    config.clusters[0].cluster.server = `https://127.0.0.1:${await freePort()}`;
    const unreachable = join(dir, 'unreachable.kubeconfig');
    writeFileSync(unreachable, stringify(config));
    const api = await start(unreachable);
    const res = await api.call('GET', '/readyz');
    expect(res).toMatchObject({ status: 503, body: { error: expect.stringContaining('not synced') } });
  });

  it('becomes ready once the App cache has synced with the management cluster', async () => {
    const api = await start(inject('mgmtKubeconfig'));
    await waitUntil(async () => (await api.call('GET', '/readyz')).status === 200, {
      what: '/readyz answering 200',
      timeoutMs: 30_000,
    });
    expect((await api.call('GET', '/readyz')).body).toEqual({ status: 'ready' });
  });
});
