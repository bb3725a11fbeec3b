/** The org's registered clusters, each probed live by the server (GET /clusters). */
import { Link } from '@tanstack/react-router';
import { useClusters } from '../../api/clusters.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { ago, formatCount } from '../../lib/format.ts';

export function ClusterListPage() {
  const clusters = useClusters();
  return (
    <div className="space-y-4">
      <PageHeader title="Clusters">
        <Link
          to="/clusters/new"
          className="rounded-md bg-sky-600 px-3.5 py-2 text-sm font-medium text-white no-underline hover:bg-sky-700"
        >
          Register cluster
        </Link>
      </PageHeader>
      <p className="text-sm text-zinc-500">
        Apps deploy to the management cluster or to a cluster registered here. Each row is probed live.
      </p>
      {clusters.error ? <ErrorState error={clusters.error} /> : null}
      {clusters.isPending ? <Spinner label="Probing the clusters" /> : null}
      {clusters.data?.clusters?.length === 0 ? <Empty title="No clusters registered" /> : null}
      {clusters.data?.clusters?.length ? (
        <Table aria-label="Clusters">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Server</Th>
              <Th>Status</Th>
              <Th>Version</Th>
              <Th>Nodes</Th>
              <Th>Apps (healthy)</Th>
              <Th>Namespaces</Th>
              <Th>Last seen</Th>
            </tr>
          </thead>
          <tbody>
            {clusters.data.clusters.map((c) => (
              <tr key={c.id} data-cluster={c.name}>
                <Td>
                  <Link to="/clusters/$name" params={{ name: c.name ?? '' }}>
                    {c.name}
                  </Link>
                </Td>
                <Td className="font-mono text-xs">{c.server_url}</Td>
                <Td>
                  <StatusBadge value={c.status} />
                  {c.status_message ? <p className="mt-1 text-xs text-zinc-500">{c.status_message}</p> : null}
                </Td>
                <Td>{c.version || '—'}</Td>
                <Td>{formatCount(c.node_count)}</Td>
                <Td>
                  {formatCount(c.deployment_count)} ({formatCount(c.healthy_deployments)})
                </Td>
                <Td>{c.namespace || 'all'}</Td>
                <Td>{ago(c.last_seen)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </div>
  );
}
