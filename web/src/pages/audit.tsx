/** The org's audit log, newest first, 50 a page (GET /audit; the page offset is in the URL). */
import { Link, useSearch } from '@tanstack/react-router';
import { useAudit } from '../api/access.ts';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { Table, Td, Th } from '../components/ui/table.tsx';
import { localTime } from '../lib/format.ts';

const PAGE = 50;

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
                <Td className="font-mono text-xs">{e.user_id || 'system'}</Td>
                <Td className="max-w-md font-mono text-xs break-all">{JSON.stringify(e.details)}</Td>
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
