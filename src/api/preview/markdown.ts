/**
 * A preview summed up in Markdown for a pull-request comment: one table row per App (what changes, counted), then
 * per App the objects that change, and the unified diffs folded in `<details>` so a long one does not bury the rest.
 * Pure.
 */

/** What the summary needs of one previewed App. */
export interface MarkdownApp {
  name: string;
  namespace: string;
  appset: string | null;
  status: 'changed' | 'unchanged' | 'failed';
  error?: string;
  diff?: {
    summary: { same: number; changed: number; missing: number; extra: number };
    objects: { kind: string; name: string; namespace: string; status: string }[];
    unified: string;
  };
}

/** Diffs longer than this are cut in the comment (forges refuse comments over 64 KiB). */
const UNIFIED_MAX = 8_000;

/** A table cell: pipes and line breaks would end the cell. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replace(/\s*\n\s*/g, ' ');
}

function counts(app: MarkdownApp): string {
  if (app.status === 'failed') return `failed: ${cell(app.error ?? '')}`;
  const s = app.diff?.summary;
  if (!s) return '';
  return `${s.changed} changed, ${s.missing} added, ${s.extra} removed, ${s.same} unchanged`;
}

/** The Markdown of a preview of `revision` of `repoURL` over `apps`. */
export function previewMarkdown(repoURL: string, revision: string, apps: readonly MarkdownApp[]): string {
  const changed = apps.filter((a) => a.status === 'changed');
  const failed = apps.filter((a) => a.status === 'failed').length;
  const lines = [
    `### svc preview of \`${revision}\``,
    '',
    `${apps.length} app(s) built from ${repoURL}: ${changed.length} would change, ${failed} failed.`,
  ];
  if (apps.length > 0) {
    lines.push('', '| App | Namespace | AppSet | Result |', '| --- | --- | --- | --- |');
    for (const a of apps) lines.push(`| ${a.name} | ${a.namespace} | ${a.appset ?? ''} | ${counts(a)} |`);
  }
  for (const a of changed) {
    lines.push('', `#### ${a.name}`, '');
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
