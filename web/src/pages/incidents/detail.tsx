/**
 * One incident: what happened (cause, severity, message, the App's status when it opened), acknowledge and resolve,
 * svc's proposed remediations to approve or reject, and the timeline. Refreshed while open.
 */
import { Link, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { appParams } from '../../api/apps.ts';
import { useAcknowledgeIncident, useIncident, useResolveIncident } from '../../api/incidents.ts';
import { useOrgMembers } from '../../api/session.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Button } from '../../components/ui/button.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { Facts } from '../../components/ui/facts.tsx';
import { ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Field, Input } from '../../components/ui/field.tsx';
import { localTime } from '../../lib/format.ts';
import { Remediations } from './remediations.tsx';
import { Timeline } from './timeline.tsx';

export function IncidentDetailPage() {
  const { id } = useParams({ from: '/incidents/$id' });
  const incident = useIncident(id);
  const acknowledge = useAcknowledgeIncident(id);
  const members = useOrgMembers();
  const who = (userId: string | null | undefined) =>
    userId ? (members.data?.members.find((m) => m.userId === userId)?.user.email ?? userId) : '';
  if (incident.error) return <ErrorState error={incident.error} title={`Incident ${id}`} />;
  if (!incident.data) return <Spinner />;
  const i = incident.data;
  const open = i.state === 'open';
  return (
    <div className="space-y-6">
      <PageHeader title={i.title}>
        <StatusBadge value={i.state} />
        <StatusBadge value={i.severity} />
        {open && !i.acknowledged_at ? (
          <Button onClick={() => acknowledge.mutate(undefined)} disabled={acknowledge.isPending}>
            Acknowledge
          </Button>
        ) : null}
        {open ? <ResolveIncident id={id} /> : null}
      </PageHeader>
      {acknowledge.error ? <ErrorState error={acknowledge.error} title="Could not acknowledge" /> : null}
      <Facts
        items={[
          [
            'Id',
            <span key="id" className="font-mono text-xs">
              {i.id}
            </span>,
          ],
          [
            'App',
            i.app ? (
              <Link key="app" to="/apps/$namespace/$name" params={appParams(i.app)}>
                {i.app.namespace}/{i.app.name}
                {i.app.cluster ? ` on ${i.app.cluster}` : ''}
              </Link>
            ) : (
              'none'
            ),
          ],
          ['Cause', i.cause],
          ['Source', i.source === 'external' ? `reported by ${who(i.opened_by) || 'an emitter'}` : 'detected by svc'],
          ['Message', i.message],
          ['Opened', localTime(i.opened_at)],
          ['Acknowledged', i.acknowledged_at ? `${localTime(i.acknowledged_at)} by ${who(i.acknowledged_by)}` : ''],
          ['Resolved', i.resolved_at ? `${localTime(i.resolved_at)}${i.resolution ? `: ${i.resolution}` : ''}` : ''],
        ]}
      />
      <section aria-labelledby="remediations" className="space-y-2">
        <h2 id="remediations" className="font-medium">
          Remediations
        </h2>
        <Remediations items={i.remediations ?? []} app={i.app ?? null} />
      </section>
      <section aria-labelledby="timeline" className="space-y-2">
        <h2 id="timeline" className="font-medium">
          Timeline
        </h2>
        <Timeline entries={i.timeline ?? []} />
      </section>
      <details className="text-sm">
        <summary className="cursor-pointer text-zinc-500">Evidence (the App's status when it opened)</summary>
        <pre className="mt-2 overflow-x-auto rounded bg-zinc-100 p-3 text-xs dark:bg-zinc-900">
          {JSON.stringify(i.evidence, null, 2)}
        </pre>
      </details>
    </div>
  );
}

function ResolveIncident({ id }: { id: string }) {
  const resolve = useResolveIncident(id);
  const [open, setOpen] = useState(false);
  const [resolution, setResolution] = useState('');
  return (
    <>
      <Button onClick={() => setOpen(true)}>Resolve</Button>
      <Dialog
        open={open}
        onOpenChange={setOpen}
        title="Resolve the incident?"
        description="Its open remediations expire. svc resolves detected incidents itself once the App is well."
      >
        <Field label="Resolution" hint="optional">
          {(p) => <Input {...p} maxLength={1000} value={resolution} onChange={(e) => setResolution(e.target.value)} />}
        </Field>
        {resolve.error ? <ErrorState error={resolve.error} title="Could not resolve" /> : null}
        <div className="mt-3 flex justify-end gap-2">
          <Button onClick={() => setOpen(false)}>Cancel</Button>
          <Button
            variant="primary"
            disabled={resolve.isPending}
            onClick={() => resolve.mutate(resolution, { onSuccess: () => setOpen(false) })}
          >
            Resolve incident
          </Button>
        </div>
      </Dialog>
    </>
  );
}
