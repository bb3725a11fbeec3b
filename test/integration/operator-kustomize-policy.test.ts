/**
 * Hostile kustomizations against a real operator on the harness plane (issue 17, GHSA-9v9p-x54c-58gc class): a
 * remote base must not make the operator dial anything, and a base outside the checkout must not be read. Both stall
 * the App with a message naming the kustomization file and the entry, relative to the repository.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { configMapYaml, createApp, getObject, unique, useOperatorSuite, waitForApp } from './operator-support.ts';

const suite = useOperatorSuite('org-kpolicy');
const { org } = suite;

const condition = (a: AppResource, type: string) => a.status?.conditions?.find((c) => c.type === type);
const stalled = (a: AppResource) => condition(a, 'Stalled')?.status === 'True';

/** A loopback HTTP listener that records every request it receives (it should receive none). */
let listener: Server;
const requests: string[] = [];
let base = '';
beforeAll(async () => {
  listener = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.end('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched}\n');
  });
  await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => listener.close(() => done())));

async function kustomizeApp(name: string, files: Record<string, string>, path: string): Promise<string> {
  const repo = await suite.git.createRepo(unique(name), files);
  const dest = suite.dest();
  await createApp(org, name, {
    source: { type: 'Git', git: { repoURL: repo.url, path } },
    destination: { namespace: dest },
    syncPolicy: { automated: true },
  });
  return dest;
}

describe('kustomization policy on the operator (GHSA-9v9p-x54c-58gc)', () => {
  it('GHSA-9v9p-x54c-58gc: a remote base on loopback is Stalled and nothing is fetched', async () => {
    await kustomizeApp(
      'remote',
      {
        'app/kustomization.yaml': `resources:\n- cm.yaml\n- ${base}/evil.yaml\n`,
        'app/cm.yaml': configMapYaml('local'),
      },
      'app',
    );
    await kustomizeApp(
      'remote-git',
      {
        'overlay/kustomization.yaml': 'resources: [../base]\n',
        'base/kustomization.yaml': `resources: ["${base}/org/repo.git//deploy?ref=main"]\n`,
      },
      'overlay',
    );
    const app = await waitForApp(org, 'remote', 'Stalled', stalled);
    expect(condition(app, 'Stalled')?.message).toBe(
      `app/kustomization.yaml: resources entry "${base}/evil.yaml" is a remote reference: svc builds kustomizations only from the App repository`,
    );
    expect(condition(app, 'SyncError')?.reason).toBe('RenderFailed');
    const git = await waitForApp(org, 'remote-git', 'Stalled', stalled);
    expect(condition(git, 'Stalled')?.message).toMatch(/^base\/kustomization\.yaml: resources entry ".*" is a remote/);
    expect(requests).toEqual([]);
  });

  it('GHSA-9v9p-x54c-58gc: a base outside the checkout (../../etc) is Stalled without a server path', async () => {
    const dest = await kustomizeApp(
      'escape',
      {
        'app/kustomization.yaml': 'resources:\n- cm.yaml\n- ../../../../../../etc/ssl\n',
        'app/cm.yaml': configMapYaml('local'),
      },
      'app',
    );
    const app = await waitForApp(org, 'escape', 'Stalled', stalled);
    const message = condition(app, 'Stalled')?.message ?? '';
    expect(message).toBe(
      'app/kustomization.yaml: resources entry "../../../../../../etc/ssl" resolves outside the repository',
    );
    expect(message).not.toMatch(/svc-checkout|\/tmp\/|\/dev\/shm/);
    // Refused before anything was applied.
    expect(await getObject('v1', 'ConfigMap', dest, 'local')).toBeUndefined();
  });

  it('an overlay on ../base and a component inside the repository deploys', async () => {
    const dest = await kustomizeApp(
      'overlay',
      {
        'base/kustomization.yaml': 'resources: [cm.yaml]\n',
        'base/cm.yaml': configMapYaml('base'),
        'components/extra/kustomization.yaml':
          'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [cm.yaml]\n',
        'components/extra/cm.yaml': configMapYaml('extra'),
        'overlays/prod/kustomization.yaml': 'resources: [../../base]\ncomponents: [../../components/extra]\n',
      },
      'overlays/prod',
    );
    await waitForApp(org, 'overlay', 'Synced', (a) => a.status?.syncStatus === 'Synced');
    expect(await getObject('v1', 'ConfigMap', dest, 'base')).toBeDefined();
    expect(await getObject('v1', 'ConfigMap', dest, 'extra')).toBeDefined();
  });
});
