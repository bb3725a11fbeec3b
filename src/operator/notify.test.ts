import { describe, expect, it } from 'vitest';
import type { AppResource } from '../core/app-schema.ts';
import { buildPayload, channelsFor, notificationsFor, slackMessage, teamsMessage, wants } from './notify.ts';

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

  const all: AppResource = {
    ...app,
    spec: {
      ...app.spec,
      notifications: {
        chat: { webhookURL: 'https://chat/hook', onHealthDegraded: true },
        slack: { webhookURL: 'https://slack/hook', onHealthDegraded: true, onHealthRecovered: true },
        msTeams: { webhookURL: 'https://teams/hook', onHealthRecovered: true },
        webhook: { url: 'https://json/hook', onSyncSuccess: true },
      },
    },
  };

  it('picks every channel that switched the event on; chat has no recovery switch', () => {
    expect(channelsFor(all, 'health.degraded').map((c) => c.kind)).toEqual(['chat', 'slack']);
    expect(channelsFor(all, 'health.recovered').map((c) => c.kind)).toEqual(['slack', 'msTeams']);
    expect(channelsFor(all, 'sync.succeeded')).toEqual([{ kind: 'webhook', url: 'https://json/hook' }]);
    expect(channelsFor(all, 'sync.failed')).toEqual([]);
  });

  it('tells a recovery from Degraded to Healthy once', () => {
    const degraded = { ...all, status: { healthStatus: 'Degraded' as const, revision: 'c1' } };
    const r = { sync: undefined, health: { status: 'Healthy', reason: '' }, message: '', failedRevision: '' };
    expect(notificationsFor(degraded, r)).toEqual([
      { event: 'health.recovered', phase: 'Healthy', message: '', revision: 'c1' },
    ]);
    expect(notificationsFor({ ...all, status: { healthStatus: 'Healthy' } }, r)).toEqual([]);
  });

  it('shapes Slack blocks and a Teams Adaptive Card from the payload, without any URL but the App link', () => {
    const p = buildPayload(all, 'health.degraded', {
      revision: '0123456789abcdef',
      phase: 'Degraded',
      message: 'Deployment web: 0/1 ready',
      publicURL: 'https://svc.example',
      at: '2026-11-21T06:00:00Z',
    });
    const slack = slackMessage(p);
    expect(slack.text).toBe(p.text);
    expect(JSON.stringify(slack.blocks)).toContain('Deployment web: 0/1 ready');
    expect(JSON.stringify(slack)).toContain('https://svc.example/apps/prod/web');
    const card = teamsMessage(p).attachments[0];
    expect(card?.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card?.content.type).toBe('AdaptiveCard');
    expect(JSON.stringify(card)).toContain('web is Degraded');
    for (const body of [slack, teamsMessage(p)]) expect(JSON.stringify(body)).not.toMatch(/slack\/hook|teams\/hook/);
  });
});
