/**
 * The org's incidents (GET /incidents), newest first, filtered by state, App and cause; the filters live in the URL
 * (deep links, e.g. from an App's page to its open incidents).
 */
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { appParams } from '../../api/apps.ts';
import { useIncidents } from '../../api/incidents.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Button } from '../../components/ui/button.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Field, Input, Select } from '../../components/ui/field.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { ago } from '../../lib/format.ts';

/** The causes svc detects, and the external emitters' default (an emitter may name others). */
const CAUSES = ['Degraded', 'SyncFailed', 'Stalled', 'External'];

const stateOf = (v: string) => (v === 'open' || v === 'resolved' ? v : undefined);

export function IncidentListPage() {
  const search = useSearch({ from: '/incidents' });
  const navigate = useNavigate({ from: '/incidents' });
  const incidents = useIncidents(search);
  const [app, setApp] = useState(search.app ?? '');
  const [cause, setCause] = useState(search.cause ?? '');
  const apply = (e: React.FormEvent) => {
    e.preventDefault();
    void navigate({ search: (s) => ({ ...s, app: app.trim() || undefined, cause: cause.trim() || undefined }) });
  };
  return (
    <div className="space-y-4">
      <PageHeader title="Incidents" />
      <form onSubmit={apply} className="grid max-w-4xl items-end gap-3 md:grid-cols-4">
        <Field label="State">
          {(p) => (
            <Select
              {...p}
              value={search.state ?? ''}
              onChange={(e) =>
                void navigate({ search: (s) => ({ ...s, state: stateOf(e.target.value) }), replace: true })
              }
            >
              <option value="">any</option>
              <option value="open">open</option>
              <option value="resolved">resolved</option>
            </Select>
          )}
        </Field>
        <Field label="App">
          {(p) => <Input {...p} placeholder="App name" value={app} onChange={(e) => setApp(e.target.value)} />}
        </Field>
        <Field label="Cause">
          {(p) => <Input {...p} list="incident-causes" value={cause} onChange={(e) => setCause(e.target.value)} />}
        </Field>
        <Button type="submit">Filter</Button>
      </form>
      <datalist id="incident-causes">
        {CAUSES.map((c) => (
          <option key={c} value={c} />
        ))}
      </datalist>
      {incidents.error ? <ErrorState error={incidents.error} /> : null}
      {incidents.isPending ? <Spinner /> : null}
      {incidents.data?.incidents?.length === 0 ? <Empty title="No incidents match" /> : null}
      {incidents.data?.incidents?.length ? (
        <Table aria-label="Incidents">
          <thead>
            <tr>
              <Th>Incident</Th>
              <Th>App</Th>
              <Th>Cause</Th>
              <Th>Severity</Th>
              <Th>State</Th>
              <Th>Opened</Th>
            </tr>
          </thead>
          <tbody>
            {incidents.data.incidents.map((i) => (
              <tr key={i.id} data-incident={i.id}>
                <Td>
                  <Link to="/incidents/$id" params={{ id: i.id ?? '' }}>
                    {i.title}
                  </Link>
                  <p className="text-xs text-zinc-500">{i.source === 'external' ? 'reported' : 'detected'}</p>
                </Td>
                <Td>
                  {i.app ? (
                    <Link to="/apps/$namespace/$name" params={appParams(i.app)}>
                      {i.app.name}
                    </Link>
                  ) : (
                    '—'
                  )}
                </Td>
                <Td>{i.cause}</Td>
                <Td>
                  <StatusBadge value={i.severity} />
                </Td>
                <Td>
                  <StatusBadge value={i.state} />
                  {i.acknowledged_at ? <p className="mt-1 text-xs text-zinc-500">acknowledged</p> : null}
                </Td>
                <Td>{ago(i.opened_at)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </div>
  );
}
