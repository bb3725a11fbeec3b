/**
 * Notifications of an App (docs/notifications.md): on a sync success, a sync failure, a turn to Degraded, an
 * automatic rollback (to the channels that asked for Degraded) and (for the channels beyond chat) a recovery, one POST per channel that switched the event on: the chat webhook
 * (`spec.notifications.chat`, unchanged), Slack-compatible Block Kit (`slack`), Microsoft Teams Adaptive Cards
 * (`msTeams`) and a generic JSON webhook (`webhook`). Pure: what to send and how it looks; ./notifier.ts sends.
 * No message carries a secret or a kubeconfig: only the App's name, destination, revision and status messages.
 */
import type { AppResource } from '../core/app-schema.ts';

/** The notification kinds (see docs/notifications.md). */
export type NotificationEvent =
  | 'sync.succeeded'
  | 'sync.failed'
  | 'health.degraded'
  | 'health.recovered'
  | 'rollback.automatic';

/** The channels of `spec.notifications`. */
export type ChannelKind = 'chat' | 'slack' | 'msTeams' | 'webhook';

/** One channel an App asked for an event on. */
export interface Channel {
  kind: ChannelKind;
  url: string;
}

/** The JSON body of a notification (documented in docs/notifications.md); the generic webhook's body as is. */
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

type Switch = 'onSyncSuccess' | 'onSyncFailure' | 'onHealthDegraded' | 'onHealthRecovered';
const SWITCH: Record<NotificationEvent, Switch> = {
  'sync.succeeded': 'onSyncSuccess',
  'sync.failed': 'onSyncFailure',
  'health.degraded': 'onHealthDegraded',
  'health.recovered': 'onHealthRecovered',
  // An automatic rollback answers a Degraded App: told to whoever asked to hear about it turning Degraded.
  'rollback.automatic': 'onHealthDegraded',
};

const WORDING: Record<NotificationEvent, { icon: string; what: string; color: string }> = {
  'sync.succeeded': { icon: '✅', what: 'synced', color: 'Good' },
  'sync.failed': { icon: '❌', what: 'sync failed', color: 'Attention' },
  'health.degraded': { icon: '⚠️', what: 'is Degraded', color: 'Warning' },
  'health.recovered': { icon: '💚', what: 'is Healthy again', color: 'Good' },
  'rollback.automatic': { icon: '↩️', what: 'was rolled back automatically', color: 'Warning' },
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
  const { icon, what } = WORDING[event];
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

/**
 * The channels of `app` that switched `event` on. Chat knows no recovery switch (its fields stay as the contract
 * has them); the other channels do.
 */
export function channelsFor(app: AppResource, event: NotificationEvent): Channel[] {
  const n = app.spec.notifications;
  const on = (c: Partial<Record<Switch, boolean>> | undefined) => c?.[SWITCH[event]] === true;
  const out: Channel[] = [];
  if (n?.chat?.webhookURL && event !== 'health.recovered' && on(n.chat))
    out.push({ kind: 'chat', url: n.chat.webhookURL });
  if (n?.slack?.webhookURL && on(n.slack)) out.push({ kind: 'slack', url: n.slack.webhookURL });
  if (n?.msTeams?.webhookURL && on(n.msTeams)) out.push({ kind: 'msTeams', url: n.msTeams.webhookURL });
  if (n?.webhook?.url && on(n.webhook)) out.push({ kind: 'webhook', url: n.webhook.url });
  return out;
}

/** True when the App asked for `event` on any channel. */
export function wants(app: AppResource, event: NotificationEvent): boolean {
  return channelsFor(app, event).length > 0;
}

/** A Slack Block Kit message (Slack, and Mattermost and Rocket.Chat read its `text`). */
export function slackMessage(p: NotificationPayload) {
  const facts = [
    `*Destination:* ${p.destination.cluster}/${p.destination.namespace}`,
    ...(p.revision ? [`*Revision:* \`${p.revision.slice(0, 12)}\``] : []),
    `*Phase:* ${p.phase}`,
  ];
  return {
    text: p.text,
    blocks: [
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `${WORDING[p.event].icon} *${p.app}* ${WORDING[p.event].what}` },
      },
      ...(p.message ? [{ type: 'section', text: { type: 'plain_text', text: p.message.slice(0, 2900) } }] : []),
      { type: 'context', elements: facts.map((text) => ({ type: 'mrkdwn', text })) },
      {
        type: 'actions',
        elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in svc' }, url: p.link }],
      },
    ],
  };
}

/** A Microsoft Teams message carrying an Adaptive Card (what Teams Workflows webhooks accept). */
export function teamsMessage(p: NotificationPayload) {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            {
              type: 'TextBlock',
              size: 'Medium',
              weight: 'Bolder',
              color: WORDING[p.event].color,
              text: `${p.app} ${WORDING[p.event].what}`,
              wrap: true,
            },
            ...(p.message ? [{ type: 'TextBlock', text: p.message, wrap: true }] : []),
            {
              type: 'FactSet',
              facts: [
                { title: 'Destination', value: `${p.destination.cluster}/${p.destination.namespace}` },
                { title: 'Revision', value: p.revision.slice(0, 12) || '—' },
                { title: 'Phase', value: p.phase },
                { title: 'At', value: p.at },
              ],
            },
          ],
          actions: [{ type: 'Action.OpenUrl', title: 'Open in svc', url: p.link }],
        },
      },
    ],
  };
}

/** The body a channel of `kind` receives for `payload`. */
export function bodyFor(kind: ChannelKind, payload: NotificationPayload): unknown {
  if (kind === 'slack') return slackMessage(payload);
  if (kind === 'msTeams') return teamsMessage(payload);
  return payload;
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
 * failure, a transition to Degraded (the App's previous health was not Degraded) and one from Degraded to Healthy.
 * Pure.
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
  const before = app.status?.healthStatus;
  const revision = r.appliedRevision ?? app.status?.revision ?? '';
  if (r.health?.status === 'Degraded' && before !== 'Degraded') {
    notes.push({ event: 'health.degraded', phase: 'Degraded', message: r.health.reason, revision });
  }
  if (r.health?.status === 'Healthy' && before === 'Degraded') {
    notes.push({ event: 'health.recovered', phase: 'Healthy', message: '', revision });
  }
  return notes;
}
