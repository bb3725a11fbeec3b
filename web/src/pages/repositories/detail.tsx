/**
 * One repository: its settings (never its secrets), a test, the Apps that use it, the charts of a Helm repository,
 * and delete (refused with 409 while Apps use it: the server's message names them).
 */
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { heldCredentials } from '../../../../src/core/repository.ts';
import {
  useDeleteRepository,
  useRepository,
  useRepositoryCharts,
  useRepositoryReferences,
  useTestRepository,
} from '../../api/repositories.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Button } from '../../components/ui/button.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { ago } from '../../lib/format.ts';
import { RepositoryTestResultView } from './test-result.tsx';

function Charts({ id }: { id: string }) {
  const charts = useRepositoryCharts(id);
  if (charts.error) return <ErrorState error={charts.error} title="Could not list the charts" />;
  if (charts.isPending) return <Spinner />;
  const list = charts.data?.charts ?? [];
  if (list.length === 0) return <Empty title="No charts listed (an oci:// repository is asked one chart at a time)" />;
  return (
    <ul className="space-y-1 text-sm" aria-label="Charts">
      {list.map((c) => (
        <li key={c.name}>
          <span className="font-medium">{c.name}</span>{' '}
          <span className="text-zinc-500">{(c.versions ?? []).slice(0, 8).join(', ')}</span>
        </li>
      ))}
    </ul>
  );
}

export function RepositoryDetailPage() {
  const { id } = useParams({ from: '/repositories/$id' });
  const navigate = useNavigate();
  const repository = useRepository(id);
  const references = useRepositoryReferences(id);
  const test = useTestRepository();
  const remove = useDeleteRepository(id);
  if (repository.error) return <ErrorState error={repository.error} />;
  if (!repository.data) return <Spinner />;
  const r = repository.data;
  const refs = references.data?.references ?? [];
  return (
    <div className="max-w-3xl space-y-5">
      <PageHeader title={r.name}>
        <Button onClick={() => test.mutate({ id })} disabled={test.isPending}>
          Test
        </Button>
        <Button
          variant="danger"
          onClick={() => remove.mutate(undefined, { onSuccess: () => navigate({ to: '/repositories' }) })}
          disabled={remove.isPending}
        >
          Delete
        </Button>
      </PageHeader>
      <dl className="grid grid-cols-[10rem_1fr] gap-y-1 text-sm">
        <dt className="text-zinc-500">Type</dt>
        <dd>{r.type}</dd>
        <dt className="text-zinc-500">URL</dt>
        <dd className="font-mono text-xs">{r.url}</dd>
        <dt className="text-zinc-500">Credentials</dt>
        <dd>{heldCredentials(r)}</dd>
        <dt className="text-zinc-500">Status</dt>
        <dd>
          <StatusBadge value={r.status ?? 'untested'} /> {r.status_detail}{' '}
          {r.last_tested_at ? `(${ago(r.last_tested_at)})` : ''}
        </dd>
      </dl>
      {test.data ? <RepositoryTestResultView result={test.data} /> : null}
      {remove.error ? <ErrorState error={remove.error} title="Could not delete" /> : null}
      <section className="space-y-2">
        <h2 className="text-sm font-semibold">Used by</h2>
        {refs.length === 0 ? (
          <p className="text-sm text-zinc-500">No App uses this repository.</p>
        ) : (
          <ul className="text-sm" aria-label="References">
            {refs.map((ref) => (
              <li key={ref.app}>
                {ref.app}{' '}
                <span className="text-zinc-500">({ref.via === 'url' ? 'covered by its URL' : 'repositoryRef'})</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      {r.type === 'helm' ? (
        <section className="space-y-2">
          <h2 className="text-sm font-semibold">Charts</h2>
          <Charts id={id} />
        </section>
      ) : null}
      <p className="text-sm">
        <Link to="/repositories">All repositories</Link>
      </p>
    </div>
  );
}
