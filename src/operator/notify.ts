/**
 * Chat notifications: one POST to `spec.notifications.chat.webhookURL` per sync success, sync failure and
 * transition to Degraded, when the matching switch is on. Delivery is fire-and-forget with a short timeout: a
 * failing webhook is logged and never blocks or fails the reconcile. Payload: docs/notifications.md.
 */
import type { AppResource } from '../core/app-schema.ts';

/** The notification kinds (see docs/notifications.md). */
export type NotificationEvent = 'sync.succeeded' | 'sync.failed' | 'health.degraded';

/** The JSON body of a notification (documented in docs/notifications.md). */
export interface NotificationPayload {
  /** Chat-friendly one-line summary (Slack/Mattermost/Discord-compatible `text`). */
  text: string;
  event: NotificationEvent;
  app: string;
  /** The App's own namespace (the org namespace). */
  namespace: string;
  destination: { cluster: string; namespace: string };
  revision: string;
  phase: string;
  message: string;
  /** Link to the App in the UI/API. */
  link: string;
  at: string;
}

const SWITCH: Record<NotificationEvent, 'onSyncSuccess' | 'onSyncFailure' | 'onHealthDegraded'> = {
  'sync.succeeded': 'onSyncSuccess',
  'sync.failed': 'onSyncFailure',
  'health.degraded': 'onHealthDegraded',
};

/** Builds the payload of `event` for `app`. Pure. */
export function buildPayload(
  app: AppResource,
  event: NotificationEvent,
  details: { revision: string; phase: string; message: string; publicURL: string; at: string },
): NotificationPayload {
  const cluster = app.spec.destination.cluster || 'in-cluster';
  const dest = app.spec.destination.namespace;
  const short = details.revision.slice(0, 12);
  const icon = event === 'sync.succeeded' ? '✅' : event === 'sync.failed' ? '❌' : '⚠️';
  const what = event === 'sync.succeeded' ? 'synced' : event === 'sync.failed' ? 'sync failed' : 'is Degraded';
  const link = `${details.publicURL}/apps/${encodeURIComponent(dest)}/${encodeURIComponent(app.metadata.name)}`;
  return {
    text: `${icon} ${app.metadata.name} (${cluster}/${dest}) ${what}${short ? ` at ${short}` : ''}${details.message ? `: ${details.message}` : ''}`,
    event,
    app: app.metadata.name,
    namespace: app.metadata.namespace ?? '',
    destination: { cluster, namespace: dest },
    revision: details.revision,
    phase: details.phase,
    message: details.message,
    link,
    at: details.at,
  };
}

/** True when the App asked for `event`. */
export function wants(app: AppResource, event: NotificationEvent): boolean {
  const chat = app.spec.notifications?.chat;
  return Boolean(chat?.webhookURL && chat[SWITCH[event]] === true);
}

/**
 * Posts the payload. Resolves to an error description instead of throwing, so callers can log it; never
 * rejects. The URL itself is never included in the description (it is often a secret).
 */
export async function postNotification(
  url: string,
  payload: NotificationPayload,
  timeoutMs = 5000,
): Promise<string | undefined> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'svc-operator' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? undefined : `chat webhook answered ${res.status}`;
  } catch (err) {
    return `chat webhook unreachable: ${(err as Error).name === 'TimeoutError' ? 'timeout' : (err as Error).message}`;
  }
}

/** What a reconcile produced, as far as notifications care. */
export interface NotifyInput {
  sync: 'success' | 'failure' | undefined;
  appliedRevision?: string;
  health?: { status: string; reason: string };
  message: string;
  failedRevision: string;
}

/**
 * The notifications a reconcile should send (before the App's switches are consulted): a sync success or
 * failure, and a transition to Degraded (the App's previous health was not Degraded). Pure.
 */
export function notificationsFor(
  app: AppResource,
  r: NotifyInput,
): { event: NotificationEvent; phase: string; message: string; revision: string }[] {
  const notes: { event: NotificationEvent; phase: string; message: string; revision: string }[] = [];
  if (r.sync === 'success' && r.appliedRevision) {
    notes.push({ event: 'sync.succeeded', phase: 'Succeeded', message: r.message, revision: r.appliedRevision });
  }
  if (r.sync === 'failure')
    notes.push({ event: 'sync.failed', phase: 'Failed', message: r.message, revision: r.failedRevision });
  if (r.health?.status === 'Degraded' && app.status?.healthStatus !== 'Degraded') {
    notes.push({
      event: 'health.degraded',
      phase: 'Degraded',
      message: r.health.reason,
      revision: r.appliedRevision ?? app.status?.revision ?? '',
    });
  }
  return notes;
}
