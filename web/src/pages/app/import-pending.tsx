/**
 * An imported App whose take-over is not confirmed yet (docs/migrate.md): says where it came from and what pending
 * means, and offers the two ways out, confirm (svc owns it from then on) and undo (the old controller gets it back).
 */
import { useNavigate } from '@tanstack/react-router';
import { useImportConfirm, useImportUndo } from '../../api/import.ts';
import type { AppView } from '../../api/types.ts';
import { Button } from '../../components/ui/button.tsx';
import { ErrorState } from '../../components/ui/feedback.tsx';

export function ImportPending({ app }: { app: AppView }) {
  const origin = app.import_pending;
  const confirm = useImportConfirm();
  const undo = useImportUndo();
  const navigate = useNavigate();
  if (!origin) return null;
  const target = { namespace: app.namespace ?? '', name: app.name ?? '' };
  const where = [origin.cluster ? `cluster ${origin.cluster}` : '', origin.namespace].filter(Boolean).join(', ');
  const busy = confirm.isPending || undo.isPending;
  return (
    <section
      aria-label="Import pending"
      className="space-y-2 rounded-md border border-violet-300 bg-violet-50 px-3 py-2 text-sm dark:border-violet-900 dark:bg-violet-950"
    >
      <p>
        Imported from {origin.kind} <strong>{origin.name}</strong>
        {where ? ` (${where})` : ''}. Until you confirm, svc prunes nothing and deleting the App leaves its objects.
      </p>
      <div className="flex flex-wrap gap-2">
        <Button variant="primary" disabled={busy} onClick={() => confirm.mutate(target)}>
          Confirm take-over
        </Button>
        <Button
          disabled={busy}
          onClick={() => undo.mutate(target, { onSuccess: () => void navigate({ to: '/apps' }) })}
        >
          Undo import
        </Button>
      </div>
      {confirm.error ? <ErrorState error={confirm.error} title="The confirm was refused" /> : null}
      {undo.error ? <ErrorState error={undo.error} title="The undo was refused" /> : null}
    </section>
  );
}
