/** The org's container registries (GET /registries): host, status of the last test. */
import { Link } from '@tanstack/react-router';
import { useRegistries } from '../../api/registries.ts';
import { TestedStatus } from '../../components/ui/badge.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { ago } from '../../lib/format.ts';

export function RegistryListPage() {
  const registries = useRegistries();
  return (
    <div className="space-y-4">
      <PageHeader title="Registries">
        <Link
          to="/registries/new"
          className="rounded-md bg-sky-600 px-3.5 py-2 text-sm font-medium text-white no-underline hover:bg-sky-700"
        >
          New registry
        </Link>
      </PageHeader>
      <p className="text-sm text-zinc-500">
        Image Apps name a registry with <code>registryRef</code>: their repository is then relative to its host and
        pulled with its credentials.
      </p>
      {registries.error ? <ErrorState error={registries.error} /> : null}
      {registries.isPending ? <Spinner /> : null}
      {registries.data?.registries?.length === 0 ? <Empty title="No registries yet" /> : null}
      {registries.data?.registries?.length ? (
        <Table aria-label="Registries">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Host</Th>
              <Th>Credentials</Th>
              <Th>Status</Th>
              <Th>Last tested</Th>
            </tr>
          </thead>
          <tbody>
            {registries.data.registries.map((r) => (
              <tr key={r.id} data-registry={r.name}>
                <Td>
                  <Link to="/registries/$id" params={{ id: r.id ?? '' }}>
                    {r.name}
                  </Link>
                </Td>
                <Td className="font-mono text-xs">
                  {r.insecure ? 'http://' : ''}
                  {r.host}
                </Td>
                <Td>{r.username ? `${r.username}${r.has_password ? ' (password set)' : ''}` : 'anonymous'}</Td>
                <Td>
                  <TestedStatus status={r.status} detail={r.status_detail} />
                </Td>
                <Td>{ago(r.last_tested_at)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </div>
  );
}
