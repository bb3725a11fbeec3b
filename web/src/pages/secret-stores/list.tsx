/** The org's secret stores (GET /secret-stores): type, provider, last test, how many App uses. */
import { Link } from '@tanstack/react-router';
import { useSecretStores } from '../../api/secret-stores.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { ago } from '../../lib/format.ts';

export function SecretStoreListPage() {
  const stores = useSecretStores();
  return (
    <div className="space-y-4">
      <PageHeader title="Secret stores">
        <Link
          to="/secret-stores/new"
          className="rounded-md bg-sky-600 px-3.5 py-2 text-sm font-medium text-white no-underline hover:bg-sky-700"
        >
          New store
        </Link>
      </PageHeader>
      {stores.error ? <ErrorState error={stores.error} /> : null}
      {stores.isPending ? <Spinner /> : null}
      {stores.data?.items?.length === 0 ? <Empty title="No secret stores yet" /> : null}
      {stores.data?.items?.length ? (
        <Table aria-label="Secret stores">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Type</Th>
              <Th>Provider</Th>
              <Th>Status</Th>
              <Th>Last tested</Th>
              <Th>Used by</Th>
            </tr>
          </thead>
          <tbody>
            {stores.data.items.map((s) => (
              <tr key={s.id} data-store={s.name}>
                <Td>
                  <Link to="/secret-stores/$id" params={{ id: s.id ?? '' }}>
                    {s.name}
                  </Link>
                </Td>
                <Td>{s.type}</Td>
                <Td>{s.provider}</Td>
                <Td>
                  <StatusBadge value={s.status} />
                  {s.statusDetail ? <p className="mt-1 text-xs text-zinc-500">{s.statusDetail}</p> : null}
                </Td>
                <Td>{ago(s.lastTestedAt)}</Td>
                <Td>{s.references}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </div>
  );
}
