/**
 * The org's audit log, newest first, 50 a page (GET /audit; the page offset is in the URL): who acted by name and
 * email, and the details as `key: value` lines.
 */
import { Link, useSearch } from '@tanstack/react-router';
import { useAudit } from '../api/access.ts';
import type { AuditEntry } from '../api/types.ts';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { Table, Td, Th } from '../components/ui/table.tsx';
import { localTime } from '../lib/format.ts';

const PAGE = 50;

/** A detail's value as a person reads it: text as it is, lists comma-separated, objects as `key: value` pairs. */
function readable(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map(readable).join(', ');
  if (typeof value === 'object') {
    return `(${Object.entries(value)
      .map(([k, v]) => `${k}: ${readable(v)}`)
      .join(', ')})`;
  }
  return String(value);
}

/** Who acted: name over email, or the id of a user no longer there, or svc itself. */
function Actor({ entry }: { entry: AuditEntry }) {
  if (entry.user_name) {
    return (
      <>
        <span className="block">{entry.user_name}</span>
        {entry.user_email ? <span className="block text-xs text-zinc-500">{entry.user_email}</span> : null}
      </>
    );
  }
  return entry.user_id ? <span className="font-mono text-xs">{entry.user_id}</span> : <span>svc (system)</span>;
}

/** The details, one `key: value` line each. */
function Details({ details }: { details: AuditEntry['details'] }) {
  const entries = Object.entries(details ?? {});
  if (entries.length === 0) return <span className="text-zinc-500">—</span>;
  return (
    <ul className="space-y-0.5 text-xs break-all">
      {entries.map(([k, v]) => (
        <li key={k}>{`${k}: ${readable(v)}`}</li>
      ))}
    </ul>
  );
}

export function AuditPage() {
  const { offset = 0 } = useSearch({ from: '/settings/audit' });
  const audit = useAudit(PAGE, offset);
  const entries = audit.data?.entries ?? [];
  return (
    <div className="space-y-4">
      <PageHeader title="Audit log" />
      {audit.error ? <ErrorState error={audit.error} title="Could not read the audit log" /> : null}
      {audit.isPending ? <Spinner /> : null}
      {audit.data && entries.length === 0 ? <Empty title="No entries" /> : null}
      {entries.length > 0 ? (
        <Table aria-label="Audit entries">
          <thead>
            <tr>
              <Th>When</Th>
              <Th>Action</Th>
              <Th>Resource</Th>
              <Th>User</Th>
              <Th>Details</Th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id}>
                <Td className="whitespace-nowrap">{e.created_at ? localTime(e.created_at) : ''}</Td>
                <Td className="font-mono text-xs">{e.action}</Td>
                <Td>
                  {e.resource_type} {e.resource_name}
                </Td>
                <Td title={e.user_id || undefined}>
                  <Actor entry={e} />
                </Td>
                <Td className="max-w-md">
                  <Details details={e.details} />
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
      <nav aria-label="Audit pages" className="flex gap-3 text-sm">
        {offset > 0 ? (
          <Link to="/settings/audit" search={{ offset: Math.max(0, offset - PAGE) || undefined }}>
            Newer
          </Link>
        ) : null}
        {entries.length === PAGE ? (
          <Link to="/settings/audit" search={{ offset: offset + PAGE }}>
            Older
          </Link>
        ) : null}
      </nav>
    </div>
  );
}
