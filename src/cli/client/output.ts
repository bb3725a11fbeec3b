/**
 * How client commands print what the server answered: `-o table` (default; aligned columns, kubectl style),
 * `-o wide` (more columns), `-o json` and `-o yaml` (the server's answer as is, for scripts: both parse back to the
 * same value). Pure functions returning text; commands write it to stdout.
 */
import { stringify } from 'yaml';
import { CliError, EXIT } from './errors.ts';

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The `-o` value as a format; CliError (usage) otherwise. */
export function parseOutputFormat(value: string | undefined): OutputFormat {
  const format = value ?? 'table';
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) {
    throw new CliError(`-o must be one of ${OUTPUT_FORMATS.join(', ')} (got "${format}")`, EXIT.usage);
  }
  return format as OutputFormat;
}

/** One column: its header and how a row shows in it. `wide` columns show with `-o wide` only. */
export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  wide?: boolean;
}

/** How a command's answer shows as a table: the rows it holds and the columns. */
export interface TableView<T> {
  rows: T[];
  columns: Column<T>[];
  /** Printed instead of an empty table. */
  empty?: string;
}

/** A cell's text: '' for null/undefined, JSON for objects, the string otherwise (one line). */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value).replace(/\s*\n\s*/g, ' ');
}

/** The rows as aligned columns with an upper-case header line (three spaces between columns). */
export function renderTable<T>(view: TableView<T>, wide: boolean): string {
  if (view.rows.length === 0) return `${view.empty ?? 'No resources found.'}\n`;
  const columns = view.columns.filter((c) => wide || !c.wide);
  const lines = [
    columns.map((c) => c.header.toUpperCase()),
    ...view.rows.map((r) => columns.map((c) => cell(c.value(r)))),
  ];
  const widths = columns.map((_, i) => Math.max(...lines.map((l) => (l[i] ?? '').length)));
  return `${lines
    .map((l) =>
      l
        .map((text, i) => (i === l.length - 1 ? text : text.padEnd(widths[i] ?? 0)))
        .join('   ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

/**
 * `data` in `format`: JSON or YAML of the whole answer; for table and wide, what `view` makes of it (a table, or
 * ready text such as `renderFields`; `view` learns whether wide was asked for).
 */
export function render<D, T>(
  data: D,
  format: OutputFormat,
  view: (data: D, wide: boolean) => TableView<T> | string,
): string {
  if (format === 'json') return `${JSON.stringify(data, null, 2)}\n`;
  if (format === 'yaml') return stringify(data);
  const shown = view(data, format === 'wide');
  return typeof shown === 'string' ? shown : renderTable(shown, format === 'wide');
}

/** Key/value lines (`Name:   web`) for one object's table form. */
export function renderFields(fields: Array<[string, unknown]>): string {
  const width = Math.max(...fields.map(([k]) => k.length)) + 1;
  return `${fields.map(([k, v]) => `${`${k}:`.padEnd(width)}  ${cell(v)}`).join('\n')}\n`;
}
