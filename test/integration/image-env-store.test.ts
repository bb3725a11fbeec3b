/**
 * `env[].store` of image Apps end to end (contract §2.3, §4.4 rule 7): an OpenBao value reaches the Pod template
 * as a literal on Sync, a rotated value only with the next Sync, an external-secrets entry renders an
 * ExternalSecret beside the Deployment, the stores count the App as a reference, and the values appear in no log
 * line, App status, Event or API answer. The operator runs apart and asks the server over the HTTP channel.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenBao, type PushedImage, type Registry, startOpenBao, startRegistry } from '../harness/index.ts';
import { type ImageSuite, startImageSuite } from './image-support.ts';
import { getObject, kube } from './operator-support.ts';

type Json = Record<string, unknown>;
type Container = { env?: { name: string; value?: string; valueFrom?: unknown }[] };

describe('image Apps take env values from secret stores', () => {
  let suite: ImageSuite;
  let registry: Registry;
  let bao: OpenBao;
  let pushed: PushedImage;
  const logLines: string[] = [];
  // Values unique to this run, so a scan for them cannot match anything else.
  const first = `first-${randomBytes(12).toString('hex')}`;
  const rotated = `rotated-${randomBytes(12).toString('hex')}`;

  beforeAll(async () => {
    [registry, bao] = await Promise.all([startRegistry(), startOpenBao()]);
    pushed = await registry.pushImage('svc/stored', '1.0');
    await bao.writeSecret('stored', { password: first });
    suite = await startImageSuite('imgstore', { channel: 'http', logLines });
    await suite.addRegistry('hub', registry);
  });
  afterAll(async () => {
    await suite?.stop();
    await Promise.all([registry?.stop(), bao?.stop()]);
  });

  const owner = () => ({ cookie: suite.org.owner.cookie });
  const createStore = async (body: Json) => {
    const res = await suite.org.api.call<Json>('POST', '/api/v1/secret-stores', { ...owner(), body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return String(res.body['id']);
  };
  const containerEnv = async (dest: string) => {
    const deployment = (await getObject('apps/v1', 'Deployment', dest, 'stored')) as unknown as {
      spec: { template: { spec: { containers: Container[] } } };
    };
    return deployment.spec.template.spec.containers[0]?.env ?? [];
  };

  it('injects the store value on Sync, renders the ExternalSecret, and takes a rotation with the next Sync only', async () => {
    const baoId = await createStore({
      name: 'bao',
      type: 'vault',
      provider: 'openbao',
      config: { address: bao.address },
      credentials: { token: bao.token },
    });
    const esoId = await createStore({
      name: 'eso',
      type: 'eso',
      provider: 'eso',
      config: { storeName: 'vault-backend' },
    });
    const dest = await suite.imageApp('stored', {
      registryRef: 'hub',
      repository: 'svc/stored',
      tag: '1.0',
      workload: {
        env: [
          { name: 'PLAIN', value: 'visible' },
          { name: 'DB_PASSWORD', store: { id: baoId, path: 'stored', key: 'password' } },
          { name: 'API_TOKEN', store: { id: esoId, path: 'team/stored', key: 'token' } },
        ],
      },
    });
    const sync = await suite.post(dest, 'stored', 'sync');
    expect(sync.status).toBe(200);
    await suite.succeeded('stored', sync.body['operation_id']);

    expect(await containerEnv(dest)).toEqual([
      { name: 'PLAIN', value: 'visible' },
      { name: 'DB_PASSWORD', value: first },
      { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'stored-env-1', key: 'API_TOKEN' } } },
    ]);
    const externalSecret = await getObject('external-secrets.io/v1', 'ExternalSecret', dest, 'stored-env-1');
    expect(externalSecret?.['spec']).toMatchObject({
      secretStoreRef: { name: 'vault-backend' },
      target: { name: 'stored-env-1', creationPolicy: 'Owner' },
      data: [{ secretKey: 'API_TOKEN', remoteRef: { key: 'team/stored', property: 'token' } }],
    });
    for (const id of [baoId, esoId]) {
      const store = await suite.org.api.call<Json>('GET', `/api/v1/secret-stores/${id}`, owner());
      expect(store.body['references'], id).toBe(1);
    }

    await bao.writeSecret('stored', { password: rotated });
    const again = await suite.post(dest, 'stored', 'sync');
    await suite.succeeded('stored', again.body['operation_id']);
    expect((await containerEnv(dest)).find((e) => e.name === 'DB_PASSWORD')?.value).toBe(rotated);
    expect(pushed.digest).toMatch(/^sha256:/);

    // No value in the operator's log, the App resource (status included), Events or what the API answers.
    const app = await suite.org.kube.get(suite.org.orgNs, 'stored');
    const answers = await Promise.all(
      ['', '/history', '/events', '/resources'].map((tail) =>
        suite.org.api.call('GET', `/api/v1/apps/${dest}/stored${tail}`, owner()),
      ),
    );
    const events = await kube().client.request<Json>(`/api/v1/namespaces/${suite.org.orgNs}/events`);
    expect(logLines.length).toBeGreaterThan(0);
    for (const text of [
      logLines.join('\n'),
      JSON.stringify(app?.status),
      JSON.stringify(answers),
      JSON.stringify(events),
    ]) {
      expect(text).not.toContain(first);
      expect(text).not.toContain(rotated);
    }
  });
});
