/**
 * How Apps show in the client's table output: the list's columns and one App's fields. The JSON and YAML outputs
 * print the server's app objects as they are.
 */

import type { AppView } from '../../client/answers.ts';
import type { AppSource } from '../../core/app-schema.ts';
import { shortRevision } from './outcome.ts';
import { type Column, renderFields, renderTable, type TableView } from './output.ts';

/** One line naming where an App's source is. */
export function sourceText(view: AppView['source']): string {
  // The App's own source (src/core/app-schema.ts), which the API answers as it is.
  const source = (view ?? {}) as Partial<AppSource>;
  if (source.git) {
    const path = source.git.path && source.git.path !== '.' ? ` ${source.git.path}` : '';
    return `${source.git.repoURL ?? ''}${path}@${source.git.branch ?? 'main'}`;
  }
  if (source.image) return `${source.image.repository ?? ''}:${source.image.tag ?? ''}`;
  return source.type ?? '';
}

export const APP_COLUMNS: Column<AppView>[] = [
  { header: 'name', value: (a) => a.name },
  { header: 'namespace', value: (a) => a.namespace },
  { header: 'cluster', value: (a) => a.cluster || '(management)', wide: true },
  { header: 'sync', value: (a) => a.sync_status },
  { header: 'health', value: (a) => a.health },
  { header: 'revision', value: (a) => shortRevision(a.revision) },
  { header: 'frozen', value: (a) => (a.frozen ? 'yes' : ''), wide: true },
  { header: 'source', value: (a) => sourceText(a.source), wide: true },
  { header: 'updated', value: (a) => a.updated_at, wide: true },
];

/** The list of Apps as a table. */
export function appTable(apps: AppView[]): TableView<AppView> {
  return { rows: apps, columns: APP_COLUMNS, empty: 'No apps found.' };
}

/** The dependencies keeping an App from syncing (`db: Degraded: …; cache: not found`); empty when none. */
export function blockedText(blocked: readonly { app: string; reason: string }[] | undefined): string {
  return (blocked ?? []).map((b) => `${b.app}: ${b.reason}`).join('; ');
}

/** One App as fields, then its resources and conditions as tables. */
export function appDetails(app: AppView, wide: boolean): string {
  const fields = renderFields([
    ['Name', app.name],
    ['Namespace', app.namespace],
    ['Cluster', app.cluster || '(management)'],
    ['Source', `${app.source?.['type'] ?? ''} ${sourceText(app.source)}`],
    ['Sync policy', app.sync_policy],
    ['Frozen', app.frozen ? 'yes' : 'no'],
    ['Sync', app.sync_status],
    ['Health', app.health_reason ? `${app.health} (${app.health_reason})` : app.health],
    ['Revision', app.revision],
    ['URL', app.url],
    ['Updated', app.updated_at],
    ['Depends on', (app.depends_on ?? []).join(', ')],
    ['Blocked by', blockedText(app.blocked_by)],
  ]);
  const resources = renderTable(
    {
      rows: app.resources ?? [],
      columns: [
        { header: 'kind', value: (r) => r.kind },
        { header: 'name', value: (r) => r.name },
        { header: 'namespace', value: (r) => r.namespace, wide: true },
        { header: 'sync', value: (r) => r.syncStatus },
        { header: 'health', value: (r) => r.healthStatus },
        { header: 'message', value: (r) => r.message, wide: true },
      ],
      empty: '(none)',
    },
    wide,
  );
  const conditions = renderTable(
    {
      rows: app.conditions ?? [],
      columns: [
        { header: 'type', value: (c) => c.type },
        { header: 'status', value: (c) => c.status },
        { header: 'reason', value: (c) => c.reason },
        { header: 'message', value: (c) => c.message },
      ],
      empty: '(none)',
    },
    wide,
  );
  return `${fields}\nResources:\n${resources}\nConditions:\n${conditions}`;
}
