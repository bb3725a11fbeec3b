/**
 * Applied revisions, newest first, each one click (and a confirmation) away from a rollback; the App header's banner
 * follows the rollback (it follows every operation of the App).
 */
import { useState } from 'react';
import { useApp, useHistory } from '../../api/apps.ts';
import { Button } from '../../components/ui/button.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { Empty, ErrorState, Spinner } from '../../components/ui/feedback.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { ago } from '../../lib/format.ts';
import { useOperations } from './header.tsx';

export function HistoryTab({ namespace, name }: { namespace: string; name: string }) {
  const history = useHistory(namespace, name);
  const app = useApp(namespace, name);
  const [target, setTarget] = useState<string | undefined>();
  const ops = useOperations(app.data ?? ({ namespace, name } as never));
  if (history.error) return <ErrorState error={history.error} />;
  if (!history.data || !app.data) return <Spinner />;
  const h = history.data;
  const rows = [h.revision, ...(h.previous_revisions ?? []).filter((r) => r !== h.revision)].filter((r): r is string =>
    Boolean(r),
  );
  if (rows.length === 0) return <Empty title="Nothing applied yet">Sync the app to apply its first revision.</Empty>;
  return (
    <div className="space-y-3">
      {ops.error ? <ErrorState error={ops.error} title="The rollback was refused" /> : null}
      <Table aria-label="Applied revisions">
        <thead>
          <tr>
            <Th>Revision</Th>
            <Th>State</Th>
            <Th>
              <span className="sr-only">Actions</span>
            </Th>
          </tr>
        </thead>
        <tbody>
          {rows.map((rev, i) => (
            <tr key={rev} data-revision={rev}>
              <Td className="font-mono text-xs">{rev}</Td>
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
        description={`Applies revision ${target?.slice(0, 12)} now. The next automated sync returns to the branch head.`}
      >
        <div className="flex justify-end gap-2">
          <Button onClick={() => setTarget(undefined)}>Cancel</Button>
          <Button
            variant="primary"
            onClick={() => {
              if (target) ops.run('rollback', { revision: target });
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
