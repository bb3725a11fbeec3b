/**
 * One cluster: its probed state, the namespaces it has within the allowlist, new connection settings (the stored
 * kubeconfig is never shown: a new one replaces it), and removal (409 while Apps deploy there).
 */
import { useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import {
  labelsText,
  parseLabels,
  parseNamespaces,
  useCluster,
  useClusterNamespaces,
  useRemoveCluster,
  useUpdateCluster,
} from '../../api/clusters.ts';
import type { Cluster } from '../../api/types.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmDelete } from '../../components/ui/confirm-delete.tsx';
import { Facts } from '../../components/ui/facts.tsx';
import { ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Checkbox } from '../../components/ui/field.tsx';
import { ago, formatCount, localTime } from '../../lib/format.ts';
import { ConnectionFields, type ConnectionForm } from './connection-fields.tsx';

export function ClusterDetailPage() {
  const { name } = useParams({ from: '/clusters/$name' });
  const cluster = useCluster(name);
  if (cluster.error) return <ErrorState error={cluster.error} title={`Cluster ${name}`} />;
  if (!cluster.data) return <Spinner label="Probing the cluster" />;
  const c = cluster.data.cluster;
  return (
    <div className="space-y-6">
      <PageHeader title={c.name}>
        <StatusBadge value={c.status} />
        <RemoveCluster name={c.name} />
      </PageHeader>
      <Facts
        items={[
          [
            'Server',
            <span key="server" className="font-mono text-xs">
              {c.server_url}
            </span>,
          ],
          ['Credentials', c.credentials],
          ['Status', c.status_message ? `${c.status}: ${c.status_message}` : c.status],
          ['Version', c.version],
          ['Provider / region', [c.provider, c.region].filter(Boolean).join(' / ')],
          ['Nodes', formatCount(c.node_count)],
          ['CPU / memory use', `${c.cpu_usage}% / ${c.memory_usage}%`],
          ['Apps (healthy)', `${formatCount(c.deployment_count)} (${formatCount(c.healthy_deployments)})`],
          ['Namespace allowlist', c.namespace || 'the whole cluster'],
          ['Labels', labelsText(c.labels) || 'none'],
          ['Last seen', ago(c.last_seen)],
          ['Registered', localTime(c.created_at)],
        ]}
      />
      <Namespaces name={c.name} />
      <UpdateCluster cluster={c} />
    </div>
  );
}

function Namespaces({ name }: { name: string }) {
  const namespaces = useClusterNamespaces(name);
  return (
    <section aria-labelledby="namespaces" className="space-y-2">
      <h2 id="namespaces" className="font-medium">
        Namespaces
      </h2>
      {namespaces.error ? <ErrorState error={namespaces.error} title="Cannot list the namespaces" /> : null}
      {namespaces.isPending ? <Spinner /> : null}
      {namespaces.data ? (
        <ul className="flex flex-wrap gap-1.5" aria-label="Namespaces">
          {(namespaces.data.namespaces ?? []).map((n) => (
            <li key={n} className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-xs dark:bg-zinc-800">
              {n}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function UpdateCluster({ cluster }: { cluster: Cluster }) {
  const update = useUpdateCluster(cluster.name);
  const [form, setForm] = useState<ConnectionForm>({
    server_url: cluster.server_url,
    kubeconfig: '',
    namespaces: cluster.namespace.split(',').filter(Boolean).join(', '),
    labels: labelsText(cluster.labels),
  });
  const [inCluster, setInCluster] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate(
      {
        namespaces: parseNamespaces(form.namespaces),
        labels: parseLabels(form.labels),
        ...(form.server_url !== cluster.server_url ? { server_url: form.server_url } : {}),
        ...(inCluster ? { kubeconfig: null } : form.kubeconfig ? { kubeconfig: form.kubeconfig } : {}),
      },
      { onSuccess: () => setForm((f) => ({ ...f, kubeconfig: '' })) },
    );
  };
  return (
    <section aria-labelledby="update" className="max-w-2xl space-y-3">
      <h2 id="update" className="font-medium">
        Connection settings
      </h2>
      <form onSubmit={submit} className="space-y-3">
        <ConnectionFields
          form={form}
          onChange={setForm}
          kubeconfigHint="the stored kubeconfig is never shown; a new one replaces it, empty keeps it"
        />
        <Checkbox
          label="Use the server's in-cluster credentials instead of a kubeconfig"
          checked={inCluster}
          onChange={(e) => setInCluster(e.target.checked)}
        />
        <Button type="submit" variant="primary" disabled={update.isPending}>
          Save settings
        </Button>
        {update.isSuccess ? <output className="ml-3 text-sm text-emerald-700">Saved.</output> : null}
      </form>
      {update.error ? <ErrorState error={update.error} title="Could not save the settings" /> : null}
    </section>
  );
}

function RemoveCluster({ name }: { name: string }) {
  const remove = useRemoveCluster(name);
  const navigate = useNavigate();
  return (
    <ConfirmDelete
      verb="Remove"
      noun="cluster"
      name={name}
      description="svc forgets the cluster and its credentials; nothing on the cluster is deleted. Refused while Apps deploy there."
      remove={remove}
      onDone={() => navigate({ to: '/clusters' })}
    />
  );
}
