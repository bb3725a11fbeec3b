/**
 * What a sync would change (GET …/diff): the verdict by the operator's own rule, the revisions compared, then
 * each object that differs as its unified diff (components/patch-view.tsx).
 */
import { useState } from 'react';
import { useDiff } from '../../api/apps.ts';
import type { ObjectDiff } from '../../api/types.ts';
import { PatchView } from '../../components/patch-view.tsx';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Button } from '../../components/ui/button.tsx';
import { ErrorState, Spinner } from '../../components/ui/feedback.tsx';
import { Input } from '../../components/ui/field.tsx';
import { formatCount, shortRevision } from '../../lib/format.ts';

const STATUS_TONE: Record<string, string> = { changed: 'OutOfSync', missing: 'Missing', extra: 'Held', same: 'Synced' };

function ObjectChange({ o }: { o: ObjectDiff }) {
  const label = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
  return (
    <section
      aria-label={label}
      data-diff-object={`${o.kind}/${o.name}`}
      className="rounded-md border border-zinc-200 dark:border-zinc-800"
    >
      <h3 className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2 text-sm font-medium dark:border-zinc-800">
        {label} <StatusBadge value={STATUS_TONE[o.status ?? ''] ?? o.status} className="sr-only" />
        <span className="text-xs text-zinc-500">{o.status}</span>
      </h3>
      {o.message ? <p className="px-3 py-1 text-xs text-amber-700 dark:text-amber-400">{o.message}</p> : null}
      {o.drift ? (
        <p data-testid="drift-fields" className="px-3 py-1 text-xs text-amber-700 dark:text-amber-400">
          Drifted: {o.drift.fields.join(', ')}
          {o.drift.taken_by.length > 0 ? ` (now owned by ${o.drift.taken_by.join(', ')})` : ''}
        </p>
      ) : null}
      <PatchView patch={o.patch ?? ''} label={label} />
    </section>
  );
}

/** "Compare with a ref": a branch, tag, commit or pull request ref to preview instead of the observed head. */
function CompareWithRef({ current, onCompare }: { current: string; onCompare: (ref: string) => void }) {
  const [text, setText] = useState(current);
  return (
    <form
      className="flex flex-wrap items-center gap-2 text-sm"
      onSubmit={(e) => {
        e.preventDefault();
        onCompare(text.trim());
      }}
    >
      <label htmlFor="diff-ref">Compare with a ref</label>
      <Input
        id="diff-ref"
        className="w-72"
        placeholder="branch, tag, commit or refs/pull/N/head"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <Button size="sm" type="submit" disabled={text.trim() === ''}>
        Compare
      </Button>
      {current ? (
        <Button
          size="sm"
          type="button"
          onClick={() => {
            setText('');
            onCompare('');
          }}
        >
          Back to the head
        </Button>
      ) : null}
    </form>
  );
}

export default function DiffTab({ namespace, name }: { namespace: string; name: string }) {
  const [ref, setRef] = useState('');
  return (
    <div className="space-y-3">
      <CompareWithRef current={ref} onCompare={setRef} />
      <DiffOf namespace={namespace} name={name} target={ref} />
    </div>
  );
}

function DiffOf({ namespace, name, target }: { namespace: string; name: string; target: string }) {
  const diff = useDiff(namespace, name, target || undefined);
  if (diff.error) return <ErrorState error={diff.error} title="Could not compute the diff" />;
  if (!diff.data) return <Spinner label="Rendering and comparing with the cluster" />;
  const d = diff.data;
  const differing = (d.objects ?? []).filter((o) => o.status !== 'same' || o.drift);
  const revision = d.revision ?? {};
  const summary = d.summary ?? {};
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <span data-testid="diff-verdict">
          <StatusBadge value={d.sync_status} />
        </span>
        {revision.ref ? (
          <span data-testid="diff-ref">
            previewing <code>{revision.ref}</code> (nothing is applied)
          </span>
        ) : null}
        <span>
          applied <code>{shortRevision(revision.applied)}</code>, compared{' '}
          <code>{shortRevision(revision.compared)}</code>
          {revision.head && revision.head !== revision.compared ? (
            <>
              , upstream now <code>{shortRevision(revision.head)}</code>
            </>
          ) : null}
        </span>
        <span className="text-zinc-500">
          {formatCount(summary.same)} same · {formatCount(summary.changed)} changed · {formatCount(summary.missing)}{' '}
          missing · {formatCount(summary.extra)} extra
        </span>
        <Button size="sm" className="ml-auto" onClick={() => void diff.refetch()} disabled={diff.isFetching}>
          Refresh
        </Button>
      </div>
      {d.drifted ? (
        <p role="note" className="text-sm text-amber-700 dark:text-amber-400">
          Live objects were edited outside svc: another writer took fields svc applied (listed per object). With
          selfHeal the operator applies them again within seconds; otherwise a Sync does.
        </p>
      ) : null}
      {d.sync_status === 'OutOfSync' && differing.length === 0 ? (
        <p className="text-sm">
          The objects are as desired; the applied revision is not the one observed upstream. A Sync records it.
        </p>
      ) : null}
      {differing.length === 0 && d.sync_status === 'Synced' ? (
        <p className="text-sm">No differences: the cluster is as desired.</p>
      ) : null}
      {differing.map((o) => (
        <ObjectChange key={`${o.kind}/${o.namespace}/${o.name}`} o={o} />
      ))}
    </div>
  );
}
