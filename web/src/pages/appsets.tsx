/**
 * The org's AppSets (GET /appsets, issue 27): for each, its generators and App name template, the Apps it generated
 * (each linked to its page, with sync and health as last seen), its rolling sync (./appset-rollout.tsx) and what it
 * could not generate; a new AppSet, an AppSet's spec replaced, or deleted, from text (./appset-editor.tsx). Their
 * Apps are changed through them.
 */
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { generatorKinds as kindsOf } from '../../../src/core/appset-summary.ts';
import { useAppSets, useDeleteAppSet } from '../api/appsets.ts';
import type { AppSetView } from '../api/types.ts';
import { StatusBadge } from '../components/ui/badge.tsx';
import { Button } from '../components/ui/button.tsx';
import { ConfirmDelete } from '../components/ui/confirm-delete.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { Table, Td, Th } from '../components/ui/table.tsx';
import { AppSetEditor } from './appset-editor.tsx';
import { AppSetRollout } from './appset-rollout.tsx';

/** The kinds of an AppSet's generators (`list`, `matrix(clusters, gitDirectories)`…). */
function generatorKinds(set: AppSetView): string {
  return kindsOf(set.generators);
}

/** Edit and Delete of one AppSet. */
function AppSetActions({ set, onEdit }: { set: AppSetView; onEdit: () => void }) {
  const remove = useDeleteAppSet(set.name);
  return (
    <div className="ml-auto flex gap-2">
      <Button size="sm" onClick={onEdit}>
        Edit
      </Button>
      <ConfirmDelete
        noun="AppSet"
        name={set.name}
        description="The Apps it generated are deleted with it (what they deployed too, unless it preserves resources)."
        remove={remove}
        onDone={() => undefined}
      />
    </div>
  );
}

function AppSetCard({ set }: { set: AppSetView }) {
  const headingId = `appset-${set.name}`;
  const [editing, setEditing] = useState(false);
  return (
    <section aria-labelledby={headingId} data-appset={set.name} className="space-y-3">
      <div className="flex flex-wrap items-baseline gap-x-4 gap-y-1">
        <h2 id={headingId} className="text-base font-semibold">
          {set.name}
        </h2>
        <span className="text-sm text-zinc-500">
          {generatorKinds(set)} → <code>{set.template.metadata.name}</code> ·{' '}
          {set.sync_policy.applicationsSync ?? 'sync'}
          {set.sync_policy.preserveResourcesOnDeletion ? ' · preserves resources' : ''}
          {set.generated ? '' : ' · generating…'}
        </span>
        <AppSetActions set={set} onEdit={() => setEditing(true)} />
      </div>
      {editing ? <AppSetEditor key={set.name} set={set} onDone={() => setEditing(false)} /> : null}
      {set.errors.length > 0 ? (
        <div
          role="alert"
          className="rounded-md border border-red-200 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950"
        >
          <p className="font-medium text-red-800 dark:text-red-300">Could not generate</p>
          <ul className="mt-1 list-disc pl-5 text-red-800 dark:text-red-300">
            {set.errors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <AppSetRollout set={set} />
      {set.apps.length === 0 ? (
        <p className="text-sm text-zinc-500">No Apps generated yet.</p>
      ) : (
        <Table aria-label={`Apps of ${set.name}`}>
          <thead>
            <tr>
              <Th>App</Th>
              <Th>Namespace</Th>
              <Th>Sync</Th>
              <Th>Health</Th>
            </tr>
          </thead>
          <tbody>
            {set.apps.map((a) => (
              <tr key={a.name} data-app={a.name}>
                <Td>
                  {a.namespace ? (
                    <Link to="/apps/$namespace/$name" params={{ namespace: a.namespace, name: a.name }}>
                      {a.name}
                    </Link>
                  ) : (
                    a.name
                  )}
                </Td>
                <Td>{a.namespace}</Td>
                <Td>
                  <StatusBadge value={a.sync_status} />
                </Td>
                <Td>
                  <StatusBadge value={a.health} />
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}

export function AppSetsPage() {
  const sets = useAppSets();
  const rows = sets.data?.appsets;
  const [creating, setCreating] = useState(false);
  return (
    <div className="space-y-6">
      <PageHeader title="AppSets">
        <Button variant="primary" onClick={() => setCreating(true)} disabled={creating}>
          New AppSet
        </Button>
      </PageHeader>
      {creating ? <AppSetEditor onDone={() => setCreating(false)} /> : null}
      <p className="text-sm text-zinc-500">
        Many Apps from one template: each parameter set of an AppSet's generators (a list, registered clusters, the
        directories or files of a Git repository) makes one App. Generated Apps are changed through their AppSet (here,
        or <code>svc appset create|update -f</code>); sync and rollback work on them as on any App.
      </p>
      {sets.error ? <ErrorState error={sets.error} /> : null}
      {sets.isPending ? <Spinner /> : null}
      {rows?.length === 0 ? <Empty title="No AppSets yet" /> : null}
      {rows?.map((s) => (
        <AppSetCard key={s.name} set={s} />
      ))}
    </div>
  );
}
