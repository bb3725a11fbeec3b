/** The org's Git and Helm repositories (GET /repositories): URL, which credentials are set, last test. */
import { Link } from '@tanstack/react-router';
import { heldCredentials } from '../../../../src/core/repository.ts';
import { useRepositories } from '../../api/repositories.ts';
import { TestedStatus } from '../../components/ui/badge.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { ago } from '../../lib/format.ts';

export function RepositoryListPage() {
  const repositories = useRepositories();
  const rows = repositories.data?.repositories;
  return (
    <div className="space-y-4">
      <PageHeader title="Repositories">
        <Link
          to="/repositories/new"
          className="rounded-md bg-sky-600 px-3.5 py-2 text-sm font-medium text-white no-underline hover:bg-sky-700"
        >
          New repository
        </Link>
      </PageHeader>
      <p className="text-sm text-zinc-500">
        Private Git repositories and Helm chart repositories. A repository's credentials reach every App source below
        its URL (the longest match wins), or the Apps that name it in <code>repositoryRef</code>.
      </p>
      {repositories.error ? <ErrorState error={repositories.error} /> : null}
      {repositories.isPending ? <Spinner /> : null}
      {rows?.length === 0 ? <Empty title="No repositories yet" /> : null}
      {rows?.length ? (
        <Table aria-label="Repositories">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Type</Th>
              <Th>URL</Th>
              <Th>Credentials</Th>
              <Th>Status</Th>
              <Th>Last tested</Th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} data-repository={r.name}>
                <Td>
                  <Link to="/repositories/$id" params={{ id: r.id ?? '' }}>
                    {r.name}
                  </Link>
                </Td>
                <Td>{r.type}</Td>
                <Td className="font-mono text-xs">{r.url}</Td>
                <Td>{heldCredentials(r)}</Td>
                <Td>
                  <TestedStatus status={r.status ?? 'untested'} detail={r.status_detail} />
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
