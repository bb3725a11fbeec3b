/** The App's state and its operations; a banner follows the last operation until it ends. */
import { Link, useNavigate } from '@tanstack/react-router';
import { useCallback, useState } from 'react';
import { type OperationKind, useAppStatus, useDeleteApp, useOperation } from '../../api/apps.ts';
import type { AppView } from '../../api/types.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Button, buttonStyle } from '../../components/ui/button.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { ErrorState } from '../../components/ui/feedback.tsx';
import { cn } from '../../lib/cn.ts';
import { ago, shortRevision } from '../../lib/format.ts';
import { safeHref } from '../../lib/safe-href.ts';
import { OpenIncidentsLink } from '../incidents/open-incidents-link.tsx';
import { Approvals } from './approvals.tsx';
import { BlockedBy } from './blocked-by.tsx';
import { ImportPending } from './import-pending.tsx';
import { progressOf, recordedKind, useOperationsStartedElsewhere } from './operation.ts';
import { DeliveryWindows } from './windows.tsx';

const LABEL: Record<string, string> = { sync: 'Sync', restart: 'Restart', approve: 'Approve', rollback: 'Rollback' };

/** Tracks one operation (by id) and shows where it stands. */
export function OperationBanner({ app, id, kind: asked }: { app: AppView; id: string; kind: string }) {
  const status = useAppStatus(app.namespace ?? '', app.name ?? '', (s) => progressOf(s, id).state === 'running');
  const progress = progressOf(status.data, id);
  const kind = recordedKind(status.data, id) ?? asked;
  if (progress.state === 'running') {
    return (
      <div
        role="status"
        className="rounded-md border border-sky-300 bg-sky-50 px-3 py-2 text-sm dark:border-sky-900 dark:bg-sky-950"
      >
        {LABEL[kind] ?? kind} in progress{progress.step ? `: ${progress.step}` : ''}…
      </div>
    );
  }
  const ok = progress.phase === 'Succeeded';
  return (
    <div
      role="status"
      data-phase={progress.phase}
      className={
        ok
          ? 'rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm dark:border-emerald-900 dark:bg-emerald-950'
          : 'rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm dark:border-amber-900 dark:bg-amber-950'
      }
    >
      {LABEL[kind] ?? kind} {progress.phase.toLowerCase()}
      {progress.message ? `: ${progress.message}` : ''}
    </div>
  );
}

/** Runs operations and remembers the last one, for the banner. */
export function useOperations(app: AppView) {
  const op = useOperation(app.namespace ?? '', app.name ?? '');
  const [last, setLast] = useState<{ id: string; kind: string } | undefined>();
  const run = (kind: OperationKind, body?: { revision: string; hold?: boolean }) =>
    op.mutate(
      { kind, ...(body ? { body } : {}) },
      {
        // freeze, unfreeze and release start no operation: their answer has no id.
        onSuccess: (answer) =>
          setLast('operation_id' in answer && answer.operation_id ? { id: answer.operation_id, kind } : undefined),
      },
    );
  /** Follows an operation started elsewhere (the CLI, a push) once the App shows it in flight. */
  const follow = useCallback((id: string, kind: string) => {
    setLast((followed) => (followed?.id === id ? followed : { id, kind }));
  }, []);
  return { run, last, follow, error: op.error, pending: op.isPending };
}

export function AppHeader({ app }: { app: AppView }) {
  const { run, last, follow, error, pending } = useOperations(app);
  const navigate = useNavigate();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleteError, setDeleteError] = useState<unknown>();
  const status = useAppStatus(app.namespace ?? '', app.name ?? '');
  const remove = useDeleteApp(app.namespace ?? '', app.name ?? '');
  useOperationsStartedElsewhere(status.data, follow);
  const state = status.data?.operationState as { phase?: string; message?: string } | null | undefined;
  // Approve releases an approval hold only; a sync held for its dependencies runs once they are ready.
  const held = state?.phase === 'Held' && !/waiting for dependencies/.test(state.message ?? '');
  const source = app.source as { type?: string; git?: { repoURL?: string; path?: string; branch?: string } };
  const repo = source.git?.repoURL;
  const repoHref = safeHref(repo);
  const url = safeHref(app.url);
  return (
    <section aria-label="App" className="space-y-3">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-xl font-semibold">{app.name}</h1>
          <p className="text-sm text-zinc-500">
            {app.namespace} · {app.cluster || 'management cluster'} · {source.type}
            {repo ? (
              <>
                {' · '}
                {repoHref ? (
                  <a href={repoHref} rel="noreferrer noopener" target="_blank">
                    {repo}
                  </a>
                ) : (
                  <span>{repo}</span>
                )}
                {source.git?.path ? ` (${source.git.path})` : ''}
              </>
            ) : null}
          </p>
          <OpenIncidentsLink app={app.name ?? ''} />
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="primary" disabled={pending} onClick={() => run('sync')}>
            Sync
          </Button>
          <Button disabled={pending} onClick={() => run('restart')}>
            Restart
          </Button>
          {held ? (
            <Button disabled={pending} onClick={() => run('approve')}>
              Approve
            </Button>
          ) : null}
          <Button disabled={pending} onClick={() => run(app.frozen ? 'unfreeze' : 'freeze')}>
            {app.frozen ? 'Unfreeze' : 'Freeze'}
          </Button>
          <Link
            to="/apps/new"
            search={{ clone: `${app.namespace}/${app.name}` }}
            className={cn(buttonStyle(), 'no-underline')}
          >
            Clone
          </Link>
          <Button variant="danger" onClick={() => setConfirmDelete(true)}>
            Delete
          </Button>
        </div>
      </div>
      <dl className="grid grid-cols-2 gap-3 text-sm md:grid-cols-5">
        <div>
          <dt className="text-zinc-500">Sync</dt>
          <dd data-testid="sync-status">
            <StatusBadge value={app.sync_status} />
            {app.frozen ? <StatusBadge value="Frozen" className="ml-1" /> : null}
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500">Health</dt>
          <dd data-testid="health">
            <StatusBadge value={app.health} />
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500">Revision</dt>
          <dd className="font-mono" title={app.revision}>
            {shortRevision(app.revision)}
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500">Changed</dt>
          <dd>{ago(app.updated_at)}</dd>
        </div>
        <div>
          <dt className="text-zinc-500">URL</dt>
          <dd className="truncate">
            {url ? (
              <a href={url} rel="noreferrer noopener" target="_blank">
                {app.url}
              </a>
            ) : (
              app.url || '—'
            )}
          </dd>
        </div>
      </dl>
      {app.health_reason ? <p className="text-sm text-zinc-600 dark:text-zinc-400">{app.health_reason}</p> : null}
      <ImportPending app={app} />
      <BlockedBy app={app} />
      {held ? <Approvals namespace={app.namespace ?? ''} name={app.name ?? ''} /> : null}
      <DeliveryWindows namespace={app.namespace ?? ''} name={app.name ?? ''} />
      {(app.conditions ?? [])
        .filter((c) => (c as { type?: string }).type === 'SyncError' && (c as { status?: string }).status === 'True')
        .map((c) => (
          <p key="sync-error" className="text-sm text-red-700 dark:text-red-400">
            {String((c as { message?: string }).message ?? '')}
          </p>
        ))}
      {error ? <ErrorState error={error} title="The operation was refused" /> : null}
      {last ? <OperationBanner app={app} id={last.id} kind={last.kind} /> : null}
      <Dialog
        open={confirmDelete}
        onOpenChange={setConfirmDelete}
        title={`Delete ${app.name}?`}
        description="The operator deletes what the app applied, unless it is annotated to orphan it."
      >
        {deleteError ? <ErrorState error={deleteError} /> : null}
        <div className="mt-3 flex justify-end gap-2">
          <Button onClick={() => setConfirmDelete(false)}>Cancel</Button>
          <Button
            variant="danger"
            onClick={() =>
              remove.mutate(undefined, {
                onSuccess: () => navigate({ to: '/apps' }),
                onError: (err: unknown) => setDeleteError(err),
              })
            }
          >
            Delete
          </Button>
        </div>
      </Dialog>
    </section>
  );
}
