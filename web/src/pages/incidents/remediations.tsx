/**
 * An incident's remediations: what svc proposes (rollback, restart, re-sync, unfreeze) with why, and approve (runs
 * it as the operation's own route would; 409 while another operation is pending) or reject with a reason.
 */
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { appParams } from '../../api/apps.ts';
import { useApproveRemediation, useRejectRemediation } from '../../api/incidents.ts';
import type { Incident } from '../../api/types.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Button } from '../../components/ui/button.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { Empty, ErrorState } from '../../components/ui/feedback.tsx';
import { Field, Input } from '../../components/ui/field.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { localTime, shortRevision } from '../../lib/format.ts';

export function Remediations({ items, app }: { items: NonNullable<Incident['remediations']>; app: Incident['app'] }) {
  const approve = useApproveRemediation();
  const [rejecting, setRejecting] = useState<{ id: string; action?: string } | undefined>();
  if (items.length === 0) return <Empty title="Nothing to propose">A Stalled App needs its spec changed.</Empty>;
  return (
    <>
      {approve.error ? <ErrorState error={approve.error} title="Could not approve" /> : null}
      <Table aria-label="Remediations">
        <thead>
          <tr>
            <Th>Action</Th>
            <Th>Why</Th>
            <Th>State</Th>
            <Th>Decided</Th>
            <Th>
              <span className="sr-only">Actions</span>
            </Th>
          </tr>
        </thead>
        <tbody>
          {items.map((r) => (
            <tr key={r.id} data-remediation={r.action}>
              <Td>
                <span className="font-medium">{r.action}</span>
                {r.revision ? <span className="ml-1 font-mono text-xs">{shortRevision(r.revision)}</span> : null}
                {r.pause_automated ? <p className="text-xs text-zinc-500">pauses automated sync</p> : null}
              </Td>
              <Td className="text-xs">{String((r.evidence as { why?: unknown }).why ?? '')}</Td>
              <Td>
                <StatusBadge value={r.state} />
                {r.result ? <p className="mt-1 text-xs text-zinc-500">{r.result}</p> : null}
                {r.reason ? <p className="mt-1 text-xs text-zinc-500">{r.reason}</p> : null}
                {r.operation_id && app ? (
                  <p className="mt-1 text-xs">
                    <Link to="/apps/$namespace/$name" params={appParams(app)} search={{ tab: 'history' }}>
                      operation {r.operation_id.slice(0, 8)}
                    </Link>
                  </p>
                ) : null}
              </Td>
              <Td>{localTime(r.decided_at)}</Td>
              <Td className="text-right whitespace-nowrap">
                {r.state === 'proposed' ? (
                  <div className="flex justify-end gap-1.5">
                    <Button
                      size="sm"
                      variant="primary"
                      aria-label={`Approve ${r.action}`}
                      disabled={approve.isPending}
                      onClick={() => approve.mutate(r.id ?? '')}
                    >
                      Approve
                    </Button>
                    <Button
                      size="sm"
                      aria-label={`Reject ${r.action}`}
                      onClick={() => setRejecting({ id: r.id ?? '', action: r.action })}
                    >
                      Reject
                    </Button>
                  </div>
                ) : null}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
      <RejectDialog remediation={rejecting} onClose={() => setRejecting(undefined)} />
    </>
  );
}

function RejectDialog({
  remediation,
  onClose,
}: {
  remediation: { id: string; action?: string } | undefined;
  onClose: () => void;
}) {
  const reject = useRejectRemediation();
  const [reason, setReason] = useState('');
  const close = () => {
    reject.reset();
    setReason('');
    onClose();
  };
  return (
    <Dialog
      open={remediation !== undefined}
      onOpenChange={(o) => (o ? null : close())}
      title={`Reject ${remediation?.action ?? ''}?`}
      description="The remediation is closed; the incident stays open."
    >
      <Field label="Reason" hint="optional, kept with the remediation">
        {(p) => <Input {...p} maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} />}
      </Field>
      {reject.error ? <ErrorState error={reject.error} title="Could not reject" /> : null}
      <div className="mt-3 flex justify-end gap-2">
        <Button onClick={close}>Cancel</Button>
        <Button
          variant="danger"
          disabled={reject.isPending || !remediation}
          onClick={() => remediation && reject.mutate({ id: remediation.id, reason }, { onSuccess: close })}
        >
          Reject remediation
        </Button>
      </div>
    </Dialog>
  );
}
