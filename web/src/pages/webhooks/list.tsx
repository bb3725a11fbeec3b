/** The org's outbound webhooks (GET /webhooks): where they post and which events. */
import { Link } from '@tanstack/react-router';
import { useWebhooks } from '../../api/webhooks.ts';
import { Empty, ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { localTime } from '../../lib/format.ts';

export function WebhookListPage() {
  const webhooks = useWebhooks();
  return (
    <div className="space-y-4">
      <PageHeader title="Webhooks">
        <Link
          to="/webhooks/new"
          className="rounded-md bg-sky-600 px-3.5 py-2 text-sm font-medium text-white no-underline hover:bg-sky-700"
        >
          New webhook
        </Link>
      </PageHeader>
      <p className="text-sm text-zinc-500">
        svc posts the events each webhook subscribes to, signed with its secret (<code>X-Svc-Signature</code>), and
        retries failed deliveries with backoff.
      </p>
      {webhooks.error ? <ErrorState error={webhooks.error} /> : null}
      {webhooks.isPending ? <Spinner /> : null}
      {webhooks.data?.webhooks?.length === 0 ? <Empty title="No webhooks yet" /> : null}
      {webhooks.data?.webhooks?.length ? (
        <Table aria-label="Webhooks">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>URL</Th>
              <Th>Events</Th>
              <Th>Created</Th>
            </tr>
          </thead>
          <tbody>
            {webhooks.data.webhooks.map((w) => (
              <tr key={w.id} data-webhook={w.name}>
                <Td>
                  <Link to="/webhooks/$id" params={{ id: w.id ?? '' }}>
                    {w.name}
                  </Link>
                </Td>
                <Td className="font-mono text-xs break-all">{w.url}</Td>
                <Td className="text-xs">{(w.events ?? []).join(', ')}</Td>
                <Td>{localTime(w.created_at, 'date')}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </div>
  );
}
