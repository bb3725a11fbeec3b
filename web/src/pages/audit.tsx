/** The org's audit log, newest first, 50 a page (GET /audit; the page offset is in the URL). */
import { useQuery } from '@tanstack/react-query';
import { Link, useSearch } from '@tanstack/react-router';
import { get } from '../api/client.ts';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { Table, Td, Th } from '../components/ui/table.tsx';

interface Entry {
  id: number;
  created_at: string;
  user_id: string;
  action: string;
  resource_type: string;
  resource_name: string;
  details: Record<string, unknown>;
}

const PAGE = 50;

export function AuditPage() {
  const { offset = 0 } = useSearch({ from: '/settings/audit' });
  const audit = useQuery({
    queryKey: ['audit', offset],
    queryFn: () => get<{ entries: Entry[] }>(`/api/v1/audit?limit=${PAGE}&offset=${offset}`),
  });
  return (
    <div className="space-y-4">
      <PageHeader title="Audit log" />
      {audit.error ? <ErrorState error={audit.error} title="Could not read the audit log" /> : null}
      {audit.isPending ? <Spinner /> : null}
      {audit.data && audit.data.entries.length === 0 ? <Empty title="No entries" /> : null}
      {audit.data && audit.data.entries.length > 0 ? (
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
            {audit.data.entries.map((e) => (
              <tr key={e.id}>
                <Td className="whitespace-nowrap">{new Date(e.created_at).toLocaleString()}</Td>
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
        {audit.data && audit.data.entries.length === PAGE ? (
          <Link to="/settings/audit" search={{ offset: offset + PAGE }}>
            Older
          </Link>
        ) : null}
      </nav>
    </div>
  );
}
