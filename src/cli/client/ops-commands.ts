/**
 * `svc webhook …`, `svc incident …` and `svc remediation …`: outbound webhooks (docs/webhooks.md), incidents and
 * remediations (docs/incidents.md), over the REST API.
 */

import { type Command, Option } from 'commander';
import type { Delivery, IncidentSummary, QueryOf, Remediation, RequestBody, Webhook } from '../../client/answers.ts';
import { registerApprovalCommands } from './approval-commands.ts';
import { CliError, EXIT } from './errors.ts';
import { render, renderFields } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';
import { registerWindowCommands } from './window-commands.ts';

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const DELIVERY_COLUMNS = [
  { header: 'id', value: (d: Delivery) => d.id, wide: true },
  { header: 'event', value: (d: Delivery) => d.event_type },
  { header: 'state', value: (d: Delivery) => d.state },
  { header: 'attempts', value: (d: Delivery) => d.attempts },
  { header: 'code', value: (d: Delivery) => d.response_code ?? '' },
  { header: 'latency', value: (d: Delivery) => (d.latency_ms == null ? '' : `${d.latency_ms}ms`) },
  { header: 'error', value: (d: Delivery) => d.last_error ?? '' },
  { header: 'next attempt', value: (d: Delivery) => d.next_attempt_at ?? '', wide: true },
  { header: 'created', value: (d: Delivery) => d.created_at, wide: true },
];

const REMEDIATION_COLUMNS = [
  { header: 'id', value: (r: Remediation) => r.id },
  { header: 'action', value: (r: Remediation) => (r.revision ? `${r.action} ${r.revision.slice(0, 12)}` : r.action) },
  { header: 'state', value: (r: Remediation) => (r.result ? `${r.state} (${r.result})` : r.state) },
  { header: 'incident', value: (r: Remediation) => r.incident_id, wide: true },
  { header: 'operation', value: (r: Remediation) => r.operation_id ?? '', wide: true },
  { header: 'why', value: (r: Remediation) => r.evidence?.['why'] ?? '', wide: true },
];

/** Registers webhook, incident and remediation on `program`. */
export function registerOpsCommands(program: Command): void {
  registerWebhookCommands(program);
  registerIncidentCommands(program);
  registerRemediationCommands(program);
  registerApprovalCommands(program);
  registerWindowCommands(program);
}

function registerWebhookCommands(program: Command): void {
  const webhook = program.command('webhook').description('outbound webhooks: signed events to your endpoints');
  webhook
    .command('list')
    .alias('ls')
    .description('the webhooks of your org')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/webhooks');
        print(
          render(answer, format, (a) => ({
            rows: a.webhooks ?? [],
            columns: [
              { header: 'id', value: (w: Webhook) => w.id },
              { header: 'name', value: (w: Webhook) => w.name },
              { header: 'url', value: (w: Webhook) => w.url, wide: true },
              { header: 'events', value: (w: Webhook) => (w.events ?? []).join(',') },
            ],
            empty: 'No webhooks.',
          })),
        );
      }),
    );
  webhook
    .command('create <url>')
    .description('register a webhook; its signing secret is printed once')
    .requiredOption('--events <events>', 'comma-separated event types, e.g. incident.opened,incident.resolved')
    .option('--name <name>', 'a name (default: the URL host)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ events: string; name?: string }>();
        const w = await api.POST('/api/v1/webhooks', {
          body: {
            url: argsOf(cmd)[0] as string,
            // The server names the event types it takes (400, exit 2, otherwise).
            events: list(opts.events) as RequestBody<'/api/v1/webhooks', 'post'>['events'],
            ...(opts.name ? { name: opts.name } : {}),
          },
        });
        print(
          render(
            w,
            format,
            () => `webhook ${w.id} created\nsigning secret (shown once, keep it with the receiver): ${w.secret}`,
          ),
        );
      }),
    );
  webhook
    .command('delete <id>')
    .description('delete a webhook and its delivery log')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const id = argsOf(cmd)[0] as string;
        const answer = await api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } });
        print(render(answer, format, () => `webhook ${id} deleted`));
      }),
    );
  registerWebhookDeliveryCommands(webhook);
}

/** `svc webhook test|deliveries`. */
function registerWebhookDeliveryCommands(webhook: Command): void {
  webhook
    .command('test <id>')
    .description('send a signed webhook.test event now; exit 1 unless the receiver answered 2xx')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const d = await api.POST('/api/v1/webhooks/{id}/test', {
          params: { path: { id: argsOf(cmd)[0] as string } },
          body: {},
        });
        print(
          render(d, format, () =>
            d.state === 'delivered'
              ? `delivered: ${d.response_code} in ${d.latency_ms}ms`
              : `not delivered: ${d.last_error ?? d.response_code}`,
          ),
        );
        if (d.state !== 'delivered') process.exitCode = EXIT.failed;
      }),
    );
  webhook
    .command('deliveries <id>')
    .description('the delivery log of a webhook, newest first')
    .option('--limit <n>', 'entries (1..200)', '50')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/webhooks/{id}/deliveries', {
          params: { path: { id: argsOf(cmd)[0] as string }, query: { limit: cmd.opts<{ limit: string }>().limit } },
        });
        print(
          render(answer, format, (a) => ({
            rows: a.deliveries ?? [],
            columns: DELIVERY_COLUMNS,
            empty: 'No deliveries.',
          })),
        );
      }),
    );
}

function registerIncidentCommands(program: Command): void {
  const incident = program.command('incident').description('incidents svc detected on your Apps, or was told about');
  incident
    .command('list')
    .alias('ls')
    .description('incidents, newest first')
    .addOption(new Option('--state <state>', 'open or resolved').choices(['open', 'resolved']))
    .option('--app <name>', 'only this App')
    .option('--limit <n>', 'entries (1..200)', '50')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        // commander checks --state against its choices, which are the server's.
        const opts = cmd.opts<{ state?: QueryOf<'/api/v1/incidents'>['state']; app?: string; limit: string }>();
        const answer = await api.GET('/api/v1/incidents', {
          params: {
            query: {
              limit: opts.limit,
              ...(opts.state ? { state: opts.state } : {}),
              ...(opts.app ? { app: opts.app } : {}),
            },
          },
        });
        print(
          render(answer, format, (a) => ({
            rows: a.incidents ?? [],
            columns: [
              { header: 'id', value: (i: IncidentSummary) => i.id },
              {
                header: 'state',
                value: (i: IncidentSummary) => (i.state === 'open' && i.acknowledged_by ? 'open (ack)' : i.state),
              },
              { header: 'severity', value: (i: IncidentSummary) => i.severity },
              { header: 'app', value: (i: IncidentSummary) => i.app?.name ?? '' },
              { header: 'cause', value: (i: IncidentSummary) => i.cause },
              { header: 'title', value: (i: IncidentSummary) => i.title },
              { header: 'opened', value: (i: IncidentSummary) => i.opened_at, wide: true },
              { header: 'message', value: (i: IncidentSummary) => i.message, wide: true },
            ],
            empty: 'No incidents.',
          })),
        );
      }),
    );
  incident
    .command('get <id>')
    .description('an incident with its remediations and timeline')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const i = await api.GET('/api/v1/incidents/{id}', { params: { path: { id: argsOf(cmd)[0] as string } } });
        print(
          render(i, format, () => {
            const fields = renderFields([
              ['Incident', `${i.id} (${i.state}${i.acknowledged_by ? ', acknowledged' : ''})`],
              ['App', i.app ? `${i.app.namespace}/${i.app.name}` : '(none)'],
              ['Cause', `${i.cause} (${i.severity}, ${i.source})`],
              ['Title', i.title],
              ['Message', i.message],
              ['Opened', i.opened_at],
              ...(i.resolved_at
                ? ([['Resolved', `${i.resolved_at}: ${i.resolution ?? ''}`]] as [string, unknown][])
                : []),
            ]);
            const remediations = (i.remediations ?? [])
              .map((r) => `  ${r.id}  ${r.action}${r.revision ? ` ${r.revision.slice(0, 12)}` : ''}  ${r.state}`)
              .join('\n');
            const timeline = (i.timeline ?? [])
              .map(
                (e) =>
                  `  ${e.at}  ${e.kind === 'delivery' ? `delivery ${e.event_type} ${e.state}` : e.kind === 'operation' ? `operation ${operationLine(e.data)}` : e.type}`,
              )
              .join('\n');
            return `${fields}Remediations:\n${remediations || '  (none)'}\nTimeline:\n${timeline}\n`;
          }),
        );
      }),
    );
  registerIncidentActions(incident);
}

/** `svc incident create|ack|resolve`. */
function registerIncidentActions(incident: Command): void {
  incident
    .command('create <title>')
    .description('report an incident (about one of your Apps with --app); one open per App and cause')
    .option('--app <name>', 'the App it is about')
    .option('--cause <cause>', 'a cause name (default External)')
    .addOption(new Option('--severity <severity>', 'severity').choices(['info', 'warning', 'critical']))
    .option('--message <text>', 'details')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        // commander checks --severity against its choices, which are the server's.
        const opts = cmd.opts<{
          app?: string;
          cause?: string;
          severity?: RequestBody<'/api/v1/incidents', 'post'>['severity'];
          message?: string;
        }>();
        const i = await api.POST('/api/v1/incidents', {
          body: { title: argsOf(cmd)[0] as string, ...opts },
        });
        print(render(i, format, () => (i.created ? `incident ${i.id} opened` : `incident ${i.id} is already open`)));
      }),
    );
  incident
    .command('ack <id>')
    .description('acknowledge an open incident')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const id = argsOf(cmd)[0] as string;
        const i = await api.POST('/api/v1/incidents/{id}/acknowledge', { params: { path: { id } }, body: {} });
        print(render(i, format, () => `incident ${id} acknowledged`));
      }),
    );
  incident
    .command('resolve <id>')
    .description('resolve an open incident by hand')
    .option('--resolution <text>', 'what was done')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const id = argsOf(cmd)[0] as string;
        const resolution = cmd.opts<{ resolution?: string }>().resolution;
        const i = await api.POST('/api/v1/incidents/{id}/resolve', {
          params: { path: { id } },
          body: resolution ? { resolution } : {},
        });
        print(render(i, format, () => `incident ${id} resolved`));
      }),
    );
}

function registerRemediationCommands(program: Command): void {
  const remediation = program
    .command('remediation')
    .description('what svc proposes for incidents: approve to run it as an operation, or reject');
  remediation
    .command('list')
    .alias('ls')
    .description('remediations, newest first')
    .addOption(
      new Option('--state <state>', 'one state').choices(['proposed', 'approved', 'rejected', 'executed', 'expired']),
    )
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const state = cmd.opts<{ state?: QueryOf<'/api/v1/remediations'>['state'] }>().state;
        const answer = await api.GET('/api/v1/remediations', { params: { query: state ? { state } : {} } });
        print(
          render(answer, format, (a) => ({
            rows: a.remediations ?? [],
            columns: REMEDIATION_COLUMNS,
            empty: 'No remediations.',
          })),
        );
      }),
    );
  for (const [verb, describe] of [
    ['approve', 'approve: run it as its operation (exit 1 while another operation is pending)'],
    ['reject', 'reject: close it without running anything'],
  ] as const) {
    const command = remediation.command(`${verb} <id>`).description(describe);
    if (verb === 'reject') command.option('--reason <text>', 'why');
    command.action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const id = argsOf(cmd)[0] as string;
        if (!/^rem_/.test(id)) throw new CliError(`"${id}" is not a remediation id (rem_…)`, EXIT.usage);
        const reason = cmd.opts<{ reason?: string }>().reason;
        const r = await api.POST(`/api/v1/remediations/{id}/${verb}`, {
          params: { path: { id } },
          body: reason ? { reason } : {},
        });
        print(
          render(r, format, () =>
            verb === 'approve'
              ? `remediation ${id} approved: ${r.action} (operation ${r.operation_id ?? 'none'})`
              : `remediation ${id} rejected`,
          ),
        );
      }),
    );
  }
}

/** An operation timeline entry's kind and phase (its `data` is the operation record as the App's status held it). */
function operationLine(data: unknown): string {
  const op = (data ?? {}) as { kind?: unknown; phase?: unknown };
  return `${String(op.kind)} ${String(op.phase)}`;
}
