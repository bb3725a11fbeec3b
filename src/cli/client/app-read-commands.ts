/**
 * `svc app list|get|status|history|events|adoptable`: the App read routes of the REST API (contract §4.2).
 */
import type { Command } from 'commander';
import type {
  AdoptableWorkload,
  AppApprovals,
  AppEvent,
  AppWindows,
  AppHistory as History,
  HistoryRevision,
  StatusView,
} from '../../client/answers.ts';
import type { OperationState } from '../../core/app-schema.ts';
import { APP_PATH, appCommand, resolveApp } from './app-ref.ts';
import { appDetails, appTable, blockedText } from './app-views.ts';
import { shortRevision } from './outcome.ts';
import { render, renderFields, type TableView } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

/** The last operation of a status view in one line (kind, phase, its reason in parentheses, message). */
function operationText(state: StatusView['operationState']): string {
  // The App's own operationState (src/core/app-schema.ts), which the status view answers as it is.
  const op = state as Partial<OperationState> | null | undefined;
  const reason = op?.reason ? ` (${op.reason})` : '';
  return op ? `${op.kind ?? ''} ${op.phase ?? ''}${reason} ${op.message ?? ''}`.trim() : '';
}

/** The windows answer as labelled lines: open or blocked (by which window, until when), and every window. */
function windowFields(a: AppWindows): Array<[string, unknown]> {
  const list = a.windows.map(
    (w) => `${w.kind} ${w.name} (${w.source}: ${w.schedule} for ${w.duration}, ${w.time_zone})`,
  );
  return [
    ['syncs', a.open ? 'allowed now' : `blocked: ${a.message}`],
    ['opens', a.changes_at ?? '-'],
    ['windows', list.join('; ') || '-'],
  ];
}

/** The approvals answer as labelled lines: what is held, who approved, who may still approve. */
function approvalFields(a: AppApprovals): Array<[string, unknown]> {
  const approved = a.approved_by.map((x) => `${x.email} (${x.at})`).join(', ');
  return [
    ['held', a.held ? `${a.operation_id} at ${shortRevision(a.revision)}` : 'no'],
    ['requested by', a.requested_by || '-'],
    ['approvals', `${a.approved_by.length} of ${a.required}`],
    ['approved by', approved || '-'],
    ['may approve', `${a.may_approve} (${a.policy_source} policy; never the requester)`],
    ['expires', a.expires_at ?? '-'],
  ];
}

/**
 * The history as a table, current revision first: each revision with its tag (image Apps) and its commit's date,
 * author and subject (Git Apps), a column shown only when some revision has it. Without `revisions` (an older
 * server), the bare revisions.
 */
function historyTable(h: History, wide: boolean): TableView<HistoryRevision & { current: string }> {
  const revisions: HistoryRevision[] = h.revisions ?? [
    ...(h.revision ? [{ revision: h.revision }] : []),
    ...(h.previous_revisions ?? []).filter((r) => r !== h.revision).map((revision) => ({ revision })),
  ];
  const rows = revisions.map((r, i) => ({ ...r, current: i === 0 && r.revision === h.revision ? 'yes' : '' }));
  type Row = (typeof rows)[number];
  const optional: Array<[keyof HistoryRevision, string]> = [
    ['tag', 'tag'],
    ['date', 'date'],
    ['author', 'author'],
    ['subject', 'subject'],
  ];
  return {
    rows,
    columns: [
      { header: 'revision', value: (r: Row) => (wide ? r.revision : shortRevision(r.revision)) },
      { header: 'current', value: (r: Row) => r.current },
      ...optional
        .filter(([key]) => rows.some((r) => r[key] !== undefined))
        .map(([key, header]) => ({ header, value: (r: Row) => r[key] ?? '' })),
    ],
    empty: 'No revision applied yet.',
  };
}

/** Registers the read subcommands on the `svc app` command. */
export function registerAppReadCommands(app: Command): void {
  app
    .command('list')
    .alias('ls')
    .description('the Apps you may read')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.GET('/api/v1/apps');
        print(render(answer, format, (a) => appTable(a.apps ?? [])));
      }),
    );

  appCommand(app, 'get <app>', 'one App: source, policy, status, resources, conditions').action(
    run(async (cmd) => {
      const { api, format } = runtimeOf(cmd);
      const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
      print(render(await api.GET(APP_PATH, { params: { path: ref } }), format, appDetails));
    }),
  );

  appCommand(app, 'status <app>', 'sync status, health, revision and last operation')
    .option('--wait <duration>', 'block (at most 120s) until Synced+Healthy, Degraded or Unknown')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ namespace?: string; wait?: string }>();
        const ref = await resolveApp(api, argsOf(cmd)[0] as string, opts.namespace);
        const view = await api.GET(`${APP_PATH}/status`, { params: { path: ref, query: { wait: opts.wait } } });
        print(
          render(view, format, () =>
            renderFields([
              ['Name', view.name],
              ['Sync', view.sync_status],
              ['Health', view.health_reason ? `${view.health} (${view.health_reason})` : view.health],
              ['Revision', view.revision],
              ['Observed', view.observed],
              ['Frozen', view.frozen ? 'yes' : 'no'],
              ['Operation', operationText(view.operationState)],
              ['Pending', view.pending_operation ?? ''],
              ['Blocked by', blockedText(view.blocked_by)],
            ]),
          ),
        );
      }),
    );
  registerHistoryCommands(app);
}

/** `svc app history`, `svc app events` and `svc app adoptable`. */
function registerHistoryCommands(app: Command): void {
  appCommand(app, 'history <app>', 'the revision the App runs and those it ran before (rollback targets)').action(
    run(async (cmd) => {
      const { api, format } = runtimeOf(cmd);
      const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
      const history = await api.GET(`${APP_PATH}/history`, { params: { path: ref } });
      print(render(history, format, (h, wide) => historyTable(h, wide)));
    }),
  );

  appCommand(app, 'approvals <app>', "the held sync's approvals and who may still approve it").action(
    run(async (cmd) => {
      const { api, format } = runtimeOf(cmd);
      const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
      const answer = await api.GET(`${APP_PATH}/approvals`, { params: { path: ref } });
      print(render(answer, format, (a) => renderFields(approvalFields(a))));
    }),
  );

  appCommand(app, 'windows <app>', 'whether delivery windows let the App sync now, and which window blocks').action(
    run(async (cmd) => {
      const { api, format } = runtimeOf(cmd);
      const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
      const answer = await api.GET(`${APP_PATH}/windows`, { params: { path: ref } });
      print(render(answer, format, (a) => renderFields(windowFields(a))));
    }),
  );

  appCommand(app, 'events <app>', 'Kubernetes events of the App and its workloads, newest first').action(
    run(async (cmd) => {
      const { api, format } = runtimeOf(cmd);
      const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
      const answer = await api.GET(`${APP_PATH}/events`, { params: { path: ref } });
      print(
        render(answer, format, (a) => ({
          rows: a.events ?? [],
          columns: [
            { header: 'at', value: (e: AppEvent) => e.at },
            { header: 'type', value: (e: AppEvent) => e.type },
            { header: 'reason', value: (e: AppEvent) => e.reason },
            { header: 'object', value: (e: AppEvent) => e.object },
            { header: 'source', value: (e: AppEvent) => e.source, wide: true },
            { header: 'message', value: (e: AppEvent) => e.message },
          ],
          empty: 'No events.',
        })),
      );
    }),
  );

  app
    .command('adoptable')
    .description('unmanaged Deployments and StatefulSets of a namespace that adopt could take over')
    .requiredOption('-n, --namespace <namespace>', 'namespace to look in')
    .option('--cluster <cluster>', 'registered cluster (default: the management cluster)')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ namespace: string; cluster?: string }>();
        const answer = await api.GET('/api/v1/apps/adoptable', {
          params: { query: { namespace: opts.namespace, cluster: opts.cluster } },
        });
        print(
          render(answer, format, (a) => ({
            rows: a.workloads ?? [],
            columns: [
              { header: 'kind', value: (w: AdoptableWorkload) => w.kind },
              { header: 'name', value: (w: AdoptableWorkload) => w.name },
              { header: 'replicas', value: (w: AdoptableWorkload) => w.replicas },
              { header: 'adoptable', value: (w: AdoptableWorkload) => (w.adoptable ? 'yes' : `no: ${w.reason ?? ''}`) },
              { header: 'images', value: (w: AdoptableWorkload) => (w.images ?? []).join(','), wide: true },
            ],
            empty: 'No unmanaged workloads.',
          })),
        );
      }),
    );
}
