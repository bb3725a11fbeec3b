/**
 * A unified diff (as the diff route answers it, from the `diff` package on the server) shown as a table: one row
 * per line with its old and new line numbers, additions and removals coloured and marked with + and − for
 * screen readers and colour-blind readers alike. Text is rendered as text.
 */
import { parsePatch } from 'diff';
import { useMemo } from 'react';
import { cn } from '../lib/cn.ts';

interface Line {
  kind: 'add' | 'del' | 'ctx' | 'hunk';
  old?: number;
  new?: number;
  text: string;
}

function linesOf(patch: string): Line[] {
  const out: Line[] = [];
  for (const file of parsePatch(patch)) {
    for (const h of file.hunks) {
      out.push({ kind: 'hunk', text: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@` });
      let o = h.oldStart;
      let n = h.newStart;
      for (const l of h.lines) {
        const mark = l[0];
        const text = l.slice(1);
        if (mark === '+') out.push({ kind: 'add', new: n++, text });
        else if (mark === '-') out.push({ kind: 'del', old: o++, text });
        else if (mark === ' ') out.push({ kind: 'ctx', old: o++, new: n++, text });
      }
    }
  }
  return out;
}

const ROW: Record<Line['kind'], string> = {
  add: 'bg-emerald-50 dark:bg-emerald-950/60',
  del: 'bg-red-50 dark:bg-red-950/60',
  ctx: '',
  hunk: 'bg-sky-50 text-sky-800 dark:bg-sky-950/60 dark:text-sky-300',
};
const MARK: Record<Line['kind'], string> = { add: '+', del: '−', ctx: ' ', hunk: '' };

export function PatchView({ patch, label }: { patch: string; label: string }) {
  const lines = useMemo(() => linesOf(patch), [patch]);
  return (
    <div className="overflow-x-auto">
      <table className="w-full font-mono text-xs" aria-label={`Changes to ${label}`}>
        <thead className="sr-only">
          <tr>
            <th scope="col">Live line</th>
            <th scope="col">Desired line</th>
            <th scope="col">Change</th>
            <th scope="col">Text</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l, i) => (
            // Lines of a patch have no identity beyond their position.
            // biome-ignore lint/suspicious/noArrayIndexKey: the patch is replaced whole
            <tr key={i} className={cn(ROW[l.kind])} data-line={l.kind}>
              <td className="w-10 px-2 text-right text-zinc-400 select-none">{l.old ?? ''}</td>
              <td className="w-10 px-2 text-right text-zinc-400 select-none">{l.new ?? ''}</td>
              <td className="w-4 select-none">{MARK[l.kind]}</td>
              <td className="px-1 whitespace-pre">{l.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
