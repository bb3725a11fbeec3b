/**
 * Applied revisions, newest first, each one click (and a confirmation) away from a rollback, which may hold the App
 * at that revision; a held App shows the hold (revision, who, why, when) with a Release button. The App header's
 * banner follows the rollback (it follows every operation of the App).
 */
import { useState } from 'react';
import { useApp, useHistory } from '../../api/apps.ts';
import type { AppView, HistoryRevision } from '../../api/types.ts';
import { Button } from '../../components/ui/button.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { Empty, ErrorState, Spinner } from '../../components/ui/feedback.tsx';
import { Checkbox } from '../../components/ui/field.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { ago, localTime } from '../../lib/format.ts';
import { useOperations } from './header.tsx';

/** What the source says of a revision: the commit's subject over its author and date (Git), or the tag (image). */
function Change({ subject, author, date, tag }: Omit<HistoryRevision, 'revision'>) {
  const byline = [author, date ? localTime(date) : undefined].filter(Boolean).join(' · ');
  return (
    <div className="min-w-0">
      {subject !== undefined ? <div className="truncate font-medium">{subject}</div> : null}
      {byline ? <div className="text-xs text-zinc-600 dark:text-zinc-400">{byline}</div> : null}
      {tag !== undefined ? <div className="font-mono text-xs">tag {tag}</div> : null}
      {subject === undefined && !byline && tag === undefined ? <span className="text-zinc-500">—</span> : null}
    </div>
  );
}

export function HistoryTab({ namespace, name }: { namespace: string; name: string }) {
  const history = useHistory(namespace, name);
  const app = useApp(namespace, name);
  const [target, setTarget] = useState<string | undefined>();
  const [hold, setHold] = useState(false);
  const ops = useOperations(app.data ?? ({ namespace, name } as never));
  if (history.error) return <ErrorState error={history.error} />;
  if (!history.data || !app.data) return <Spinner />;
  const h = history.data;
  const rows: HistoryRevision[] =
    h.revisions ??
    [h.revision, ...(h.previous_revisions ?? []).filter((r) => r !== h.revision)]
      .filter((r): r is string => Boolean(r))
      .map((revision) => ({ revision }));
  const subjectOf = (rev: string | undefined) => rows.find((r) => r.revision === rev)?.subject;
  if (rows.length === 0) return <Empty title="Nothing applied yet">Sync the app to apply its first revision.</Empty>;
  return (
    <div className="space-y-3">
      {ops.error ? <ErrorState error={ops.error} title="The request was refused" /> : null}
      {app.data.held_at ? <Held held={app.data.held_at} onRelease={() => ops.run('release')} /> : null}
      <Table aria-label="Applied revisions">
        <thead>
          <tr>
            <Th>Revision</Th>
            <Th>Change</Th>
            <Th>State</Th>
            <Th>
              <span className="sr-only">Actions</span>
            </Th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ revision: rev, ...about }, i) => (
            <tr key={rev} data-revision={rev}>
              <Td className="font-mono text-xs">{rev}</Td>
              <Td>
                <Change {...about} />
              </Td>
              <Td>{i === 0 ? `applied ${ago(h.last_sync_at)}` : 'previous'}</Td>
              <Td className="text-right">
                {i === 0 ? null : (
                  <Button size="sm" aria-label={`Roll back to ${rev.slice(0, 12)}`} onClick={() => setTarget(rev)}>
                    Roll back
                  </Button>
                )}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
      <Dialog
        open={target !== undefined}
        onOpenChange={(o) => (o ? null : setTarget(undefined))}
        title="Roll back?"
        description={`Applies revision ${target?.slice(0, 12)}${subjectOf(target) ? ` (“${subjectOf(target)}”)` : ''} now. Without a hold, the next periodic resync of an automated app returns to the branch head.`}
      >
        <Checkbox
          label="Hold at this revision until released"
          checked={hold}
          onChange={(e) => setHold(e.currentTarget.checked)}
        />
        <div className="flex justify-end gap-2">
          <Button onClick={() => setTarget(undefined)}>Cancel</Button>
          <Button
            variant="primary"
            onClick={() => {
              if (target) ops.run('rollback', { revision: target, ...(hold ? { hold: true } : {}) });
              setTarget(undefined);
            }}
          >
            Roll back
          </Button>
        </div>
      </Dialog>
    </div>
  );
}

/** The hold a rollback put on the App, and the button that ends it. */
function Held({ held, onRelease }: { held: NonNullable<AppView['held_at']>; onRelease: () => void }) {
  return (
    <div
      role="status"
      data-held={held.revision}
      className="flex items-center justify-between gap-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm dark:border-amber-900 dark:bg-amber-950"
    >
      <span>
        Held at <span className="font-mono">{held.revision.slice(0, 12)}</span> by {held.by} {ago(held.at)}
        {held.reason ? ` — ${held.reason}` : ''}. Automated sync and pushes do not move it.
      </span>
      <Button size="sm" onClick={onRelease}>
        Release
      </Button>
    </div>
  );
}
