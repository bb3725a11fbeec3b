/**
 * One webhook: where it posts and what, a test delivery sent now, its delivery log (state, attempts, response code,
 * latency, last error) and deletion (its queue and log go with it).
 */
import { useNavigate, useParams } from '@tanstack/react-router';
import { useDeleteWebhook, useDeliveries, useTestWebhook, useWebhook } from '../../api/webhooks.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmDelete } from '../../components/ui/confirm-delete.tsx';
import { Facts } from '../../components/ui/facts.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { ago, formatCount, localTime } from '../../lib/format.ts';

export function WebhookDetailPage() {
  const { id } = useParams({ from: '/webhooks/$id' });
  const webhook = useWebhook(id);
  const test = useTestWebhook(id);
  if (webhook.error) return <ErrorState error={webhook.error} title={`Webhook ${id}`} />;
  if (!webhook.data) return <Spinner />;
  const w = webhook.data;
  return (
    <div className="space-y-6">
      <PageHeader title={w.name}>
        <Button onClick={() => test.mutate()} disabled={test.isPending}>
          Send test
        </Button>
        <DeleteWebhook id={id} name={w.name ?? id} />
      </PageHeader>
      {test.data ? (
        <output data-testid="webhook-test" className="block text-sm">
          Test delivery {test.data.state}
          {test.data.response_code != null ? `: HTTP ${test.data.response_code}` : ''}
          {test.data.latency_ms != null ? ` in ${test.data.latency_ms} ms` : ''}
          {test.data.last_error ? ` (${test.data.last_error})` : ''}
        </output>
      ) : null}
      {test.error ? <ErrorState error={test.error} title="Could not send the test" /> : null}
      <Facts
        items={[
          [
            'Id',
            <span key="id" className="font-mono text-xs">
              {w.id}
            </span>,
          ],
          [
            'URL',
            <span key="url" className="font-mono text-xs break-all">
              {w.url}
            </span>,
          ],
          ['Events', (w.events ?? []).join(', ')],
          ['Secret', 'shown once at creation; create a new webhook to rotate it'],
          ['Created', localTime(w.created_at)],
        ]}
      />
      <DeliveryLog id={id} />
    </div>
  );
}

function DeliveryLog({ id }: { id: string }) {
  const deliveries = useDeliveries(id);
  return (
    <section aria-labelledby="deliveries" className="space-y-2">
      <h2 id="deliveries" className="font-medium">
        Deliveries
      </h2>
      {deliveries.error ? <ErrorState error={deliveries.error} /> : null}
      {deliveries.isPending ? <Spinner /> : null}
      {deliveries.data?.deliveries?.length === 0 ? <Empty title="Nothing delivered yet" /> : null}
      {deliveries.data?.deliveries?.length ? (
        <Table aria-label="Deliveries">
          <thead>
            <tr>
              <Th>Event</Th>
              <Th>State</Th>
              <Th>Attempts</Th>
              <Th>Response</Th>
              <Th>Latency</Th>
              <Th>Last error</Th>
              <Th>Queued</Th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.deliveries.map((d) => (
              <tr key={d.id} data-delivery={d.id}>
                <Td className="font-mono text-xs">{d.event_type}</Td>
                <Td>
                  <StatusBadge value={d.state} />
                  {d.next_attempt_at ? (
                    <p className="mt-1 text-xs text-zinc-500">next try {localTime(d.next_attempt_at, 'time')}</p>
                  ) : null}
                </Td>
                <Td>{formatCount(d.attempts)}</Td>
                <Td>{d.response_code ?? '—'}</Td>
                <Td>{d.latency_ms != null ? `${d.latency_ms} ms` : '—'}</Td>
                <Td className="text-xs break-words">{d.last_error ?? ''}</Td>
                <Td>{ago(d.created_at)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </section>
  );
}

function DeleteWebhook({ id, name }: { id: string; name: string }) {
  const remove = useDeleteWebhook(id);
  const navigate = useNavigate();
  return (
    <ConfirmDelete
      noun="webhook"
      name={name}
      description="Deliveries still queued for it are dropped, and its delivery log goes with it."
      remove={remove}
      onDone={() => navigate({ to: '/webhooks' })}
    />
  );
}
