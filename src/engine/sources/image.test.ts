import { describe, expect, it } from 'vitest';
import type { AppResource, AppStatus, ImageSource, Operation } from '../../core/app-schema.ts';
import { InputError } from '../../core/errors.ts';
import { RegistryClient } from '../../registry/index.ts';
import { CLONED_REVISION_ANNOTATION, cloneAnnotations, ImageDriver } from './image.ts';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
/** Nothing listens on port 1: any registry call this driver makes fails, so an answer proves none was made. */
const REPOSITORY = '127.0.0.1:1/team/web';
const driver = new ImageDriver({
  client: new RegistryClient({ policy: { scope: 'loopback', requireHttps: false }, timeoutMs: 2000 }),
  registry: async (_ns, name) => ({ host: name === 'hub' ? '127.0.0.1:1' : '127.0.0.2:1', insecure: true }),
});

function app(image: Partial<ImageSource>, status?: AppStatus): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'web', namespace: 'org-x' },
    spec: {
      source: { type: 'Image', image: { repository: REPOSITORY, tag: '1.0', ...image } },
      destination: { namespace: 'd' },
    },
    ...(status ? { status } : {}),
  };
}
const op = (kind: Operation['kind'], revision?: string): Operation => ({
  kind,
  initiatedAt: '2026-11-21T05:00:00Z',
  id: 'x',
  ...(revision ? { revision } : {}),
});
const applied: AppStatus = {
  revision: D1,
  observedRevision: D2,
  revisionTags: [{ revision: D1, tag: '1.0', image: REPOSITORY }],
};

describe('image driver: which digest a reconcile targets', () => {
  it('keeps the recorded digest while image and tag are unchanged (Sync, Restart, observing)', async () => {
    for (const operation of [undefined, op('Sync'), op('Restart')]) {
      expect(await driver.resolve(app({}, applied), { target: 'head', operation })).toEqual({
        head: D1,
        revision: D1,
        observed: D2,
        origin: { tag: '1.0', image: REPOSITORY },
      });
    }
  });

  it('applies an exact revision (Rollback, Approve) or a pinned Deploy without asking the registry', async () => {
    expect(await driver.resolve(app({}, applied), { target: D2, operation: op('Rollback', D2) })).toMatchObject({
      head: D2,
      revision: D2,
      observed: D2,
    });
    expect(await driver.resolve(app({ tag: '2.0' }, applied), { target: 'head', operation: op('Deploy', D2) })).toEqual(
      {
        head: D2,
        revision: D2,
        observed: D2,
        origin: { tag: '2.0', image: REPOSITORY },
      },
    );
    await expect(driver.resolve(app({}, applied), { target: 'abc', operation: op('Rollback', 'abc') })).rejects.toThrow(
      InputError,
    );
  });

  it('resolves live for a Deploy, a first sync, or a changed tag or image (here: the registry is unreachable)', async () => {
    const cases: Array<[AppResource, Operation | undefined]> = [
      [app({}, applied), op('Deploy')],
      [app({}), op('Sync')],
      [app({ tag: '2.0' }, applied), op('Sync')],
      [app({ registryRef: 'other', repository: 'team/web' }, applied), undefined],
    ];
    for (const [a, operation] of cases) {
      await expect(driver.resolve(a, { target: 'head', operation })).rejects.toMatchObject({ errorClass: 'connect' });
    }
  });

  it("deploys a clone's first sync at the original's digest while its image and tag are the original's", async () => {
    const original = app({}, { ...applied, observedRevision: D2 });
    const annotations = cloneAnnotations(original);
    const clone = (image: Partial<ImageSource>, status?: AppStatus): AppResource => {
      const a = app(image, status);
      return { ...a, metadata: { ...a.metadata, annotations } };
    };
    expect(await driver.resolve(clone({}), { target: 'head', operation: op('Sync') })).toEqual({
      head: D1,
      revision: D1,
      observed: D1,
      origin: { tag: '1.0', image: REPOSITORY },
    });
    // Resolved live (the registry is unreachable here): a Deploy, an edited tag, a Follow clone.
    for (const [a, operation] of [
      [clone({}), op('Deploy')],
      [clone({ tag: '2.0' }), op('Sync')],
      [clone({ tagPolicy: 'Follow' }), undefined],
    ] as const) {
      await expect(driver.resolve(a, { target: 'head', operation })).rejects.toMatchObject({ errorClass: 'connect' });
    }
    // No pin from a Follow original, one never synced, or one whose digest came from another tag.
    expect(cloneAnnotations(app({ tagPolicy: 'Follow' }, applied))).toEqual({});
    expect(cloneAnnotations(app({}))).toEqual({});
    expect(cloneAnnotations(app({ tag: '2.0' }, applied))).toEqual({});
    expect(JSON.parse(annotations[CLONED_REVISION_ANNOTATION] ?? '')).toEqual(applied.revisionTags?.[0]);
  });

  it('renders the digest under the image name, and stalls an invalid spec', async () => {
    const objects = await driver.render(app({ registryRef: 'hub', repository: 'team/web' }), D1, {} as never);
    const deployment = objects.find((o) => o.kind === 'Deployment');
    expect(JSON.stringify(deployment)).toContain(`127.0.0.1:1/team/web@${D1}`);
    await expect(driver.resolve(app({ tag: 'a b' }), { target: 'head', operation: undefined })).rejects.toThrow(
      'spec.source.image.tag must be a tag',
    );
    expect(driver.publicURL(app({ ingress: { enabled: true, host: 'w.example' } }))).toBe('http://w.example');
  });
});

describe('image driver: env.store values', () => {
  const env = [
    { name: 'PLAIN', value: 'p' },
    { name: 'DB', store: { id: 'sts_1', path: 'db', key: 'pw' } },
  ];
  /** A channel answering the current `secret` for DB, counting the calls. */
  function channel() {
    const state = { calls: 0, secret: 'one' };
    const values = {
      envValues: async () => {
        state.calls++;
        return [{ name: 'DB', value: state.secret }];
      },
    };
    return { state, values };
  }
  const withEnv = (generation: number): AppResource => {
    const a = app({ workload: { env } }, applied);
    return { ...a, metadata: { ...a.metadata, uid: 'u1', generation } };
  };
  const dbValue = async (d: ImageDriver, a: AppResource) => {
    const objects = await d.render(a, D1, undefined as never);
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } };
    };
    return deployment.spec.template.spec.containers[0]?.env.find((e) => e.name === 'DB')?.value;
  };

  it('resolves once per sync: an observing reconcile keeps the values, a Sync or a new generation asks again', async () => {
    const { state, values } = channel();
    const d = new ImageDriver({
      client: new RegistryClient({ policy: { scope: 'loopback', requireHttps: false } }),
      registry: async () => ({ host: 'x', insecure: true }),
      values,
    });
    await d.resolve(withEnv(1), { target: 'head', operation: undefined });
    expect(await dbValue(d, withEnv(1))).toBe('one');
    state.secret = 'two';
    await d.resolve(withEnv(1), { target: 'head', operation: undefined });
    expect(await dbValue(d, withEnv(1))).toBe('one');
    expect(state.calls).toBe(1);
    await d.resolve(withEnv(1), { target: 'head', operation: op('Sync') });
    expect(await dbValue(d, withEnv(1))).toBe('two');
    state.secret = 'three';
    await d.resolve(withEnv(2), { target: 'head', operation: undefined });
    expect(await dbValue(d, withEnv(2))).toBe('three');
    expect(state.calls).toBe(3);
  });

  it('waits, naming the channel, when there is no server to ask', async () => {
    await expect(driver.resolve(withEnv(1), { target: 'head', operation: undefined })).rejects.toMatchObject({
      message: expect.stringContaining('needs the channel to the server'),
      retry: 'wait',
    });
  });
});
