/**
 * `svc app list|get|status|history|events|adoptable`: the App read routes of the REST API (contract §4.2).
 */
import type { Command } from 'commander';
import { appCommand, resolveApp } from './app-ref.ts';
import { type AppObject, appDetails, appTable } from './app-views.ts';
import { appPath } from './follow.ts';
import { type StatusView, shortRevision } from './outcome.ts';
import { render, renderFields } from './output.ts';
import { argsOf, print, run, runtimeOf } from './runtime.ts';

/** Registers the read subcommands on the `svc app` command. */
export function registerAppReadCommands(app: Command): void {
  app
    .command('list')
    .alias('ls')
    .description('the Apps you may read')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const answer = await api.request<{ apps: AppObject[] }>('GET', '/apps');
        print(render(answer, format, (a) => appTable(a.apps)));
      }),
    );

  appCommand(app, 'get <app>', 'one App: source, policy, status, resources, conditions').action(
    run(async (cmd) => {
      const { api, format } = runtimeOf(cmd);
      const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
      print(render(await api.request<AppObject>('GET', appPath(ref)), format, appDetails));
    }),
  );

  appCommand(app, 'status <app>', 'sync status, health, revision and last operation')
    .option('--wait <duration>', 'block (at most 120s) until Synced+Healthy, Degraded or Unknown')
    .action(
      run(async (cmd) => {
        const { api, format } = runtimeOf(cmd);
        const opts = cmd.opts<{ namespace?: string; wait?: string }>();
        const ref = await resolveApp(api, argsOf(cmd)[0] as string, opts.namespace);
        const view = await api.request<StatusView>('GET', appPath(ref, '/status'), { query: { wait: opts.wait } });
        print(
          render(view, format, () =>
            renderFields([
              ['Name', view.name],
              ['Sync', view.sync_status],
              ['Health', view.health_reason ? `${view.health} (${view.health_reason})` : view.health],
              ['Revision', view.revision],
              ['Observed', view.observed],
              ['Frozen', view.frozen ? 'yes' : 'no'],
              [
                'Operation',
                view.operationState
                  ? `${view.operationState.kind} ${view.operationState.phase} ${view.operationState.message ?? ''}`.trim()
                  : '',
              ],
              ['Pending', view.pending_operation ?? ''],
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
      const history = await api.request<{
        revision: string;
        previous_revisions: string[];
        last_sync_at: string | null;
      }>('GET', appPath(ref, '/history'));
      const rows = [
        ...(history.revision ? [{ revision: history.revision, current: 'yes' }] : []),
        ...history.previous_revisions.map((revision) => ({ revision, current: '' })),
      ];
      print(
        render(history, format, (_h, wide) => ({
          rows,
          columns: [
            {
              header: 'revision',
              value: (r: (typeof rows)[number]) => (wide ? r.revision : shortRevision(r.revision)),
            },
            { header: 'current', value: (r: (typeof rows)[number]) => r.current },
          ],
          empty: 'No revision applied yet.',
        })),
      );
    }),
  );

  appCommand(app, 'events <app>', 'Kubernetes events of the App and its workloads, newest first').action(
    run(async (cmd) => {
      const { api, format } = runtimeOf(cmd);
      const ref = await resolveApp(api, argsOf(cmd)[0] as string, cmd.opts().namespace);
      type Event = { at: string; type: string; object: string; reason: string; message: string; source: string };
      const answer = await api.request<{ events: Event[] }>('GET', appPath(ref, '/events'));
      print(
        render(answer, format, (a) => ({
          rows: a.events,
          columns: [
            { header: 'at', value: (e: Event) => e.at },
            { header: 'type', value: (e: Event) => e.type },
            { header: 'reason', value: (e: Event) => e.reason },
            { header: 'object', value: (e: Event) => e.object },
            { header: 'source', value: (e: Event) => e.source, wide: true },
            { header: 'message', value: (e: Event) => e.message },
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
        type Workload = {
          kind: string;
          name: string;
          replicas?: number;
          images?: string[];
          adoptable?: boolean;
          reason?: string;
        };
        const answer = await api.request<{ workloads: Workload[] }>('GET', '/apps/adoptable', {
          query: { namespace: opts.namespace, cluster: opts.cluster },
        });
        print(
          render(answer, format, (a) => ({
            rows: a.workloads,
            columns: [
              { header: 'kind', value: (w: Workload) => w.kind },
              { header: 'name', value: (w: Workload) => w.name },
              { header: 'replicas', value: (w: Workload) => w.replicas },
              { header: 'adoptable', value: (w: Workload) => (w.adoptable ? 'yes' : `no: ${w.reason ?? ''}`) },
              { header: 'images', value: (w: Workload) => (w.images ?? []).join(','), wide: true },
            ],
            empty: 'No unmanaged workloads.',
          })),
        );
      }),
    );
}
