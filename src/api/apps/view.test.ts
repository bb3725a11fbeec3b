import { describe, expect, it } from 'vitest';
import type { AppResource, AppStatus } from '../../core/app-schema.ts';
import { appView, isPending, isTerminal, statusView } from './view.ts';

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

  it('calls an operation pending until operationState echoes its id', () => {
    expect(isPending(app(undefined, 'a'))).toBe(true);
    expect(isPending(app({ operationState: { kind: 'Sync', id: 'old', phase: 'Succeeded' } }, 'a'))).toBe(true);
    expect(isPending(app({ operationState: { kind: 'Sync', id: 'a', phase: 'Held' } }, 'a'))).toBe(false);
    expect(isPending(app())).toBe(false);
    expect(statusView(app(undefined, 'a')).pending_operation).toBe('a');
  });

  it('ends a status wait on Synced+Healthy, Degraded, Unknown, or a Failed/Held operation, never while pending', () => {
    expect(isTerminal(app())).toBe(false);
    expect(isTerminal(app({ syncStatus: 'Synced', healthStatus: 'Healthy' }))).toBe(true);
    expect(isTerminal(app({ syncStatus: 'Synced', healthStatus: 'Progressing' }))).toBe(false);
    expect(isTerminal(app({ syncStatus: 'OutOfSync', healthStatus: 'Degraded' }))).toBe(true);
    expect(isTerminal(app({ syncStatus: 'OutOfSync', healthStatus: 'Unknown' }))).toBe(true);
    expect(
      isTerminal(
        app(
          {
            syncStatus: 'OutOfSync',
            healthStatus: 'Healthy',
            operationState: { kind: 'Sync', id: 'a', phase: 'Failed' },
          },
          'a',
        ),
      ),
    ).toBe(true);
    expect(isTerminal(app({ syncStatus: 'Synced', healthStatus: 'Healthy' }, 'b'))).toBe(false);
  });

  it('never ends a status wait while the operator is still running the operation', () => {
    const running = { kind: 'Sync', id: 'a', phase: 'Running' } as const;
    expect(isTerminal(app({ syncStatus: 'Syncing', healthStatus: 'Unknown', operationState: running }, 'a'))).toBe(
      false,
    );
    expect(isTerminal(app({ syncStatus: 'Synced', healthStatus: 'Healthy', operationState: running }, 'a'))).toBe(
      false,
    );
    expect(isTerminal(app({ syncStatus: 'Syncing', healthStatus: 'Degraded' }))).toBe(false);
  });
});
