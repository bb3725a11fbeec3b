import { describe, expect, it } from 'vitest';
import type { AppResource, ImageSource } from '../../core/app-schema.ts';
import { followKey, isFollowing, stillMoved } from './tag-poller.ts';

function app(image: Partial<ImageSource>, extra: Partial<AppResource> = {}, observed = 'sha256:x'): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'a', namespace: 'org-x', ...extra.metadata },
    spec: {
      source: { type: 'Image', image: { repository: 'team/web', tag: '1', tagPolicy: 'Follow', ...image } },
      destination: { namespace: 'd' },
      ...extra.spec,
    },
    status: { observedRevision: observed },
  } as AppResource;
}

describe('tag poller rules', () => {
  it('follows image Apps with tagPolicy Follow that the operator has seen, unless frozen or being deleted', () => {
    expect(isFollowing(app({}))).toBe(true);
    expect(isFollowing(app({ tagPolicy: 'Pinned' }))).toBe(false);
    expect(isFollowing(app({}, {}, ''))).toBe(false);
    const base = app({});
    expect(isFollowing({ ...base, spec: { ...base.spec, freeze: true } })).toBe(false);
    expect(isFollowing({ ...base, metadata: { ...base.metadata, deletionTimestamp: 'now' } })).toBe(false);
  });

  it('still deploys when only the cache lagged (an operation finished meanwhile), not when the spec or digest moved', () => {
    const read = app({}, { metadata: { name: 'a', generation: 2 } }, 'sha256:old');
    const finished = { ...read, status: { ...read.status, operationState: { phase: 'Succeeded' } } } as AppResource;
    expect(stillMoved(read, finished, 'sha256:new')).toBe(true);
    expect(stillMoved(read, { ...finished, metadata: { ...finished.metadata, generation: 3 } }, 'sha256:new')).toBe(
      false,
    );
    expect(stillMoved(read, app({}, { metadata: { name: 'a', generation: 2 } }, 'sha256:new'), 'sha256:new')).toBe(
      false,
    );
    expect(
      stillMoved(read, app({ tagPolicy: 'Pinned' }, { metadata: { name: 'a', generation: 2 } }), 'sha256:new'),
    ).toBe(false);
  });

  it('asks once per registry (and whose credentials), repository and tag, however many Apps follow it', () => {
    const key = (orgId: string, image: Partial<ImageSource>) =>
      followKey({ app: app(image), orgId, image: { repository: 'team/web', tag: '1', ...image } });
    expect(key('o1', {})).toBe(key('o2', {}));
    expect(key('o1', { registryRef: 'hub' })).not.toBe(key('o2', { registryRef: 'hub' }));
    expect(key('o1', { registryRef: 'hub' })).toBe(key('o1', { registryRef: 'hub' }));
    expect(key('o1', { tag: '2' })).not.toBe(key('o1', {}));
    expect(key('o1', { repository: 'team/api' })).not.toBe(key('o1', {}));
  });
});
