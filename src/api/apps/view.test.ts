import { describe, expect, it } from 'vitest';
import type { AppResource, AppStatus } from '../../core/app-schema.ts';
import { appView, statusView } from './view.ts';

function app(status?: AppStatus, operationId?: string): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'web', creationTimestamp: '2026-11-21T05:00:00Z' },
    spec: {
      source: { type: 'Git', git: { repoURL: 'https://g/x.git' } },
      destination: { namespace: 'web' },
      ...(operationId ? { operation: { kind: 'Sync', initiatedAt: '2026-11-21T05:01:00Z', id: operationId } } : {}),
    },
    ...(status ? { status } : {}),
  };
}

describe('app views', () => {
  it('fills the §2.1 object with defaults before the operator reports', () => {
    expect(appView(app())).toMatchObject({
      name: 'web',
      namespace: 'web',
      cluster: '',
      sync_status: 'Unknown',
      health: 'Unknown',
      revision: '',
      resources: [],
      updated_at: '2026-11-21T05:00:00.000Z',
    });
  });

  it('uses the newest known time as updated_at', () => {
    const view = appView(
      app({
        lastSyncAt: '2026-11-21T06:00:00Z',
        operationState: { kind: 'Sync', phase: 'Succeeded', finishedAt: '2026-11-21T06:00:05Z' },
      }),
    );
    expect(view.updated_at).toBe('2026-11-21T06:00:05.000Z');
  });

  it('names a requested operation in pending_operation until the operator picks it up (app-state.ts)', () => {
    expect(statusView(app(undefined, 'a')).pending_operation).toBe('a');
    const running = { kind: 'Sync' as const, id: 'a', initiatedAt: '2026-11-21T05:01:00Z', phase: 'Running' as const };
    expect(statusView(app({ operationState: running }, 'a')).pending_operation).toBeNull();
    expect(statusView(app()).pending_operation).toBeNull();
  });
});
