/**
 * A preview summed up in Markdown for a pull-request comment: one table row per App (what changes, counted), then
 * per App the objects that change, and the unified diffs folded in `<details>` so a long one does not bury the rest.
 * An App an AppSet would create or delete at the ref says so in its row and heading, and each AppSet generated at
 * the ref has a line (how many Apps, what it could not generate). Pure.
 */

/** What the summary needs of one previewed App. */
export interface MarkdownApp {
  name: string;
  namespace: string;
  appset: string | null;
  /** added: an AppSet would create the App at the ref; removed: would delete it. Absent: existing. */
  lifecycle?: 'existing' | 'added' | 'removed';
  status: 'changed' | 'unchanged' | 'failed';
  error?: string;
  diff?: {
    summary: { same: number; changed: number; missing: number; extra: number };
    objects: { kind: string; name: string; namespace: string; status: string }[];
    unified: string;
  };
}

/** What the summary needs of one AppSet generated at the ref. */
export interface MarkdownAppSet {
  name: string;
  status: 'generated' | 'failed';
  error?: string;
  apps: number;
  errors: string[];
}

/** Diffs longer than this are cut in the comment (forges refuse comments over 64 KiB). */
const UNIFIED_MAX = 8_000;

/** A table cell: pipes and line breaks would end the cell. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replace(/\s*\n\s*/g, ' ');
}

const LIFECYCLE = { existing: '', added: 'new App: ', removed: 'App removed: ' } as const;

function counts(app: MarkdownApp): string {
  const prefix = LIFECYCLE[app.lifecycle ?? 'existing'];
  if (app.status === 'failed') return `${prefix}failed: ${cell(app.error ?? '')}`;
  const s = app.diff?.summary;
  if (!s) return prefix;
  return `${prefix}${s.changed} changed, ${s.missing} added, ${s.extra} removed, ${s.same} unchanged`;
}

/** One line per AppSet generated at the ref, and its errors there. */
function appSetLines(appSets: readonly MarkdownAppSet[], apps: readonly MarkdownApp[]): string[] {
  const lines: string[] = [];
  for (const set of appSets) {
    const mine = apps.filter((a) => a.appset === set.name);
    const added = mine.filter((a) => a.lifecycle === 'added').length;
    const removed = mine.filter((a) => a.lifecycle === 'removed').length;
    lines.push(
      set.status === 'failed'
        ? `- AppSet **${set.name}**: cannot be generated at this ref: ${cell(set.error ?? '')}`
        : `- AppSet **${set.name}**: generates ${set.apps} app(s) at this ref, ${added} new, ${removed} removed`,
    );
    for (const e of set.errors) lines.push(`  - ${cell(e)}`);
  }
  return lines.length > 0 ? ['', ...lines] : [];
}

/** The heading of a changed App's section: an App an AppSet would create or delete says so. */
function heading(a: MarkdownApp): string {
  if (a.lifecycle === 'added') return `#### ${a.name} (new App of AppSet ${a.appset ?? ''})`;
  if (a.lifecycle === 'removed') return `#### ${a.name} (App removed by AppSet ${a.appset ?? ''})`;
  return `#### ${a.name}`;
}

/** The Markdown of a preview of `revision` of `repoURL` over `apps`. */
export function previewMarkdown(
  repoURL: string,
  revision: string,
  apps: readonly MarkdownApp[],
  appSets: readonly MarkdownAppSet[] = [],
): string {
  const changed = apps.filter((a) => a.status === 'changed');
  const failed = apps.filter((a) => a.status === 'failed').length;
  const lines = [
    `### svc preview of \`${revision}\``,
    '',
    `${apps.length} app(s) built from ${repoURL}: ${changed.length} would change, ${failed} failed.`,
    ...appSetLines(appSets, apps),
  ];
  if (apps.length > 0) {
    lines.push('', '| App | Namespace | AppSet | Result |', '| --- | --- | --- | --- |');
    for (const a of apps) lines.push(`| ${a.name} | ${a.namespace} | ${a.appset ?? ''} | ${counts(a)} |`);
  }
  for (const a of changed) {
    lines.push('', heading(a), '');
    for (const o of a.diff?.objects ?? []) {
      if (o.status !== 'same') lines.push(`- ${o.status} ${o.kind}/${o.name}`);
    }
    const unified = a.diff?.unified ?? '';
    const shown = unified.length > UNIFIED_MAX ? `${unified.slice(0, UNIFIED_MAX)}\n… (cut)\n` : unified;
    // A fence longer than any run of backticks in the diff, so the diff cannot close it.
    const fence = '`'.repeat(Math.max(3, ...[...shown.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    lines.push('', '<details><summary>diff</summary>', '', `${fence}diff`, shown.trimEnd(), fence, '', '</details>');
  }
  return `${lines.join('\n')}\n`;
}
