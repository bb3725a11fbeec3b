import { describe, expect, it } from 'vitest';
import type { AppResource } from '../core/app-schema.ts';
import { buildPayload, wants } from './notify.ts';

const app: AppResource = {
  apiVersion: 'cd.svc.space/v1alpha1',
  kind: 'App',
  metadata: { name: 'web', namespace: 'org-acme' },
  spec: {
    source: { type: 'Git', git: { repoURL: 'https://h/r.git' } },
    destination: { namespace: 'prod' },
    notifications: { chat: { webhookURL: 'https://chat/hook', onSyncFailure: true } },
  },
};

describe('notifications', () => {
  it('builds the documented payload', () => {
    const p = buildPayload(app, 'sync.failed', {
      revision: '0123456789abcdef',
      phase: 'Failed',
      message: 'm/a.yaml: missing kind',
      publicURL: 'https://svc.example',
      at: '2026-11-21T06:00:00Z',
    });
    expect(p).toEqual({
      text: '❌ web (in-cluster/prod) sync failed at 0123456789ab: m/a.yaml: missing kind',
      event: 'sync.failed',
      app: 'web',
      namespace: 'org-acme',
      destination: { cluster: 'in-cluster', namespace: 'prod' },
      revision: '0123456789abcdef',
      phase: 'Failed',
      message: 'm/a.yaml: missing kind',
      link: 'https://svc.example/apps/prod/web',
      at: '2026-11-21T06:00:00Z',
    });
  });

  it('sends only what the App switched on', () => {
    expect(wants(app, 'sync.failed')).toBe(true);
    expect(wants(app, 'sync.succeeded')).toBe(false);
    expect(wants(app, 'health.degraded')).toBe(false);
  });
});
