/**
 * The operations-loop tables on SQLite and PostgreSQL: event fan-out, the delivery queue's claims, incident dedup,
 * leases, and one observation step of the incident detector (its input App built here; the integration tests run
 * the real operator).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../../test/harness/postgres.ts';
import { describeWith, postgresRequirement } from '../../test/harness/requirements.ts';
import type { AppResource, AppStatus } from '../core/app-schema.ts';
import { AuditStore } from '../store/audit.ts';
import { openStore, type Store } from '../store/database.ts';
import { DeliveryStore } from '../store/deliveries.ts';
import { IncidentStore } from '../store/incidents.ts';
import { migrateStore } from '../store/migrations.ts';
import { RemediationStore } from '../store/remediations.ts';
import { inTransaction } from '../store/transaction.ts';
import { newWebhookId, WebhookStore } from '../store/webhooks.ts';
import { recordObservation } from './record-observation.ts';

const org = { id: 'org-1', slug: 'acme' };

function webhook(events: string[]) {
  return {
    id: newWebhookId(),
    orgId: org.id,
    name: 'hook',
    url: 'https://hooks.example/in',
    events,
    sealedSecret: 'enc:v1:x',
    createdBy: 'u',
    createdAt: new Date().toISOString(),
  };
}

function app(status: AppStatus): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'web', namespace: 'org-acme', uid: 'uid-1', generation: 1 },
    spec: { source: { type: 'Git', git: { repoURL: 'https://h/r.git' } }, destination: { namespace: 'prod' } },
    status: { observedGeneration: 1, ...status },
  };
}

for (const kind of ['sqlite', 'postgres'] as const) {
  (kind === 'postgres' ? describeWith(postgresRequirement()) : describe)(`operations loop store on ${kind}`, () => {
    let store: Store;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      const fresh = await freshDatabase(kind);
      drop = fresh.drop;
      store = openStore(fresh.config);
      await migrateStore(store);
    });
    afterAll(async () => {
      await store?.close();
      await drop?.();
    });

    it('queues an event for the subscribed webhooks only, with the documented envelope', async () => {
      const subscribed = webhook(['incident.opened']);
      const other = webhook(['sync.failed']);
      await new WebhookStore(store.db).create(subscribed);
      await new WebhookStore(store.db).create(other);
      const event = await inTransaction(store.db, (tx) =>
        tx.events.emit({
          org,
          type: 'incident.opened',
          app: { name: 'web', namespace: 'prod', cluster: '' },
          incidentId: 'inc_1',
          data: { cause: 'Degraded' },
        }),
      );
      const deliveries = new DeliveryStore(store.db);
      const queued = await deliveries.listForEvents(org.id, [event.id]);
      expect(queued.map((d) => d.webhookId)).toEqual([subscribed.id]);
      expect(JSON.parse(queued[0]?.body ?? '')).toEqual({
        id: event.id,
        type: 'incident.opened',
        created_at: event.createdAt,
        org,
        app: { name: 'web', namespace: 'prod', cluster: '' },
        incident_id: 'inc_1',
        data: { cause: 'Degraded' },
      });
      // Timeline-only events are recorded but never delivered.
      const ack = await inTransaction(store.db, (tx) =>
        tx.events.emit({ org, type: 'incident.acknowledged', incidentId: 'inc_1', data: {} }),
      );
      expect(await deliveries.listForEvents(org.id, [ack.id])).toEqual([]);
      await new WebhookStore(store.db).delete(org.id, subscribed.id);
      await new WebhookStore(store.db).delete(org.id, other.id);
    });

    it('claims each due delivery for one holder, retakes expired claims, and records attempts under the claim', async () => {
      const w = webhook(['sync.failed']);
      await new WebhookStore(store.db).create(w);
      const deliveries = new DeliveryStore(store.db);
      const t0 = new Date('2030-01-01T00:00:00Z');
      for (let i = 0; i < 6; i++) {
        await deliveries.enqueue(
          { orgId: org.id, webhookId: w.id, eventId: `evt_${i}`, eventType: 'sync.failed', body: '{}' },
          t0,
        );
      }
      const now = new Date(t0.getTime() + 1000);
      const [a, b] = await Promise.all([
        deliveries.claimDue('a', now, 60_000, 4),
        deliveries.claimDue('b', now, 60_000, 4),
      ]);
      const ids = [...(a ?? []), ...(b ?? [])].map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(6);
      // Claimed rows are nobody else's until the claim expires; handed back, they are due again at once.
      expect(await deliveries.claimDue('c', now, 60_000, 10)).toEqual([]);
      await deliveries.release(
        'a',
        (a ?? []).map((d) => d.id),
      );
      expect(await deliveries.claimDue('c', now, 60_000, 10, [w.id])).toEqual([]);
      const handedBack = await deliveries.claimDue('c', now, 60_000, 10);
      expect(handedBack.map((d) => d.id).sort()).toEqual((a ?? []).map((d) => d.id).sort());
      const later = new Date(now.getTime() + 61_000);
      const retaken = await deliveries.claimDue('e', later, 60_000, 10);
      expect(retaken).toHaveLength(6);
      const first = retaken[0];
      if (!first) throw new Error('nothing retaken');
      const retryAt = new Date(later.getTime() + 5000).toISOString();
      const failed = {
        attempt: {
          at: later.toISOString(),
          response_code: 500,
          latency_ms: 3,
          error: 'answered 500',
          retry_at: retryAt,
        },
        state: 'pending' as const,
      };
      // The first holder lost its claim: its record does not count.
      expect(await deliveries.recordAttempt(first.id, 'a', failed)).toBe(false);
      expect(await deliveries.recordAttempt(first.id, 'e', failed)).toBe(true);
      const stored = await deliveries.get(first.id);
      expect(stored).toMatchObject({ state: 'pending', attempts: 1, responseCode: 500, nextAttemptAt: retryAt });
      expect(stored?.attemptLog).toHaveLength(1);
      // Not due before its retry time.
      const beforeRetry = await deliveries.claimDue('d', new Date(later.getTime() + 4000), 60_000, 10);
      expect(beforeRetry.map((d) => d.id)).not.toContain(first.id);
      const due = await deliveries.claimDue('d', new Date(later.getTime() + 5000), 60_000, 10);
      expect(due.map((d) => d.id)).toEqual([first.id]);
      await new WebhookStore(store.db).delete(org.id, w.id);
      expect(await deliveries.get(first.id)).toBeUndefined();
    });

    it('keeps one open incident per App and cause, and frees the key once resolved', async () => {
      const incidents = new IncidentStore(store.db);
      const base = {
        orgId: org.id,
        app: { name: 'dedup', namespace: 'prod', cluster: '' },
        cause: 'Degraded',
        source: 'detector' as const,
        severity: 'critical',
        title: 't',
        message: 'm',
        evidence: {},
        openedBy: '',
      };
      const first = await incidents.open(base);
      const again = await incidents.open(base);
      expect(first.created).toBe(true);
      expect(again).toEqual({ incident: first.incident, created: false });
      expect((await incidents.open({ ...base, cause: 'SyncFailed' })).created).toBe(true);
      expect(await incidents.resolve(org.id, first.incident.id, '', 'fixed')).toBe(true);
      expect(await incidents.resolve(org.id, first.incident.id, '', 'fixed')).toBe(false);
      const reopened = await incidents.open(base);
      expect(reopened.created).toBe(true);
      expect(reopened.incident.id).not.toBe(first.incident.id);
      expect(await incidents.get('another-org', reopened.incident.id)).toBeUndefined();
    });

    it('observes an App: opens one incident with proposals, tells nothing twice, resolves on recovery', async () => {
      const healthy = app({
        syncStatus: 'Synced',
        healthStatus: 'Healthy',
        revision: 'c1',
        lastSyncAt: '2030-01-01T00:00:00Z',
        conditions: [{ type: 'SyncError', status: 'False', reason: 'NoError' }],
      });
      const degraded = app({
        ...healthy.status,
        revision: 'c2',
        previousRevisions: ['c1'],
        lastSyncAt: '2030-01-01T00:01:00Z',
        healthStatus: 'Degraded',
        healthReason: 'Deployment web: 0/1 ready',
      });
      const observe = (a: AppResource | undefined) =>
        inTransaction(store.db, (tx) => recordObservation(tx, org, 'org-acme', 'web', a));
      await observe(healthy);
      expect(await observe(degraded)).toBeGreaterThan(0);
      expect(await observe(degraded)).toBe(0);
      const incidents = new IncidentStore(store.db);
      const open = await incidents.list(org.id, { state: 'open', app: 'web', limit: 10, offset: 0 });
      expect(open.map((i) => [i.cause, i.source, i.title])).toEqual([['Degraded', 'detector', 'web is Degraded']]);
      const incident = open[0];
      if (!incident) throw new Error('no incident');
      const proposals = await new RemediationStore(store.db).ofIncident(org.id, incident.id);
      expect(proposals.map((p) => [p.action, p.revision, p.state])).toEqual([
        ['rollback', 'c1', 'proposed'],
        ['restart', null, 'proposed'],
      ]);
      await observe(app({ ...degraded.status, healthStatus: 'Healthy', healthReason: '' }));
      expect(await incidents.get(org.id, incident.id)).toMatchObject({ state: 'resolved', resolvedBy: '' });
      expect((await new RemediationStore(store.db).ofIncident(org.id, incident.id)).map((p) => p.state)).toEqual([
        'expired',
        'expired',
      ]);
      const audit = await new AuditStore(store.db).list(org.id, 50, 0);
      expect(audit.filter((e) => e.resource_id === incident.id).map((e) => [e.action, e.user_id])).toEqual([
        ['incident.resolve', ''],
        ['incident.open', ''],
      ]);
      // Deleted while broken: its incident is resolved too.
      await observe(degraded);
      await observe(undefined);
      expect(await incidents.list(org.id, { state: 'open', app: 'web', limit: 10, offset: 0 })).toEqual([]);
    });
  });
}
