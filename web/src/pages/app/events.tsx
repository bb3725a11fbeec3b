/** Kubernetes events of the App and its workloads (newest first); every text shown as text. */
import { useEvents } from '../../api/apps.ts';
import { Empty, ErrorState, Spinner } from '../../components/ui/feedback.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { ago } from '../../lib/format.ts';

export function EventsTab({ namespace, name }: { namespace: string; name: string }) {
  const events = useEvents(namespace, name);
  if (events.error) return <ErrorState error={events.error} />;
  if (!events.data) return <Spinner />;
  const list = events.data.events ?? [];
  if (list.length === 0) return <Empty title="No events" />;
  return (
    <Table aria-label="Events">
      <thead>
        <tr>
          <Th>When</Th>
          <Th>Type</Th>
          <Th>Object</Th>
          <Th>Reason</Th>
          <Th>Message</Th>
        </tr>
      </thead>
      <tbody>
        {list.map((e, i) => (
          // Events have no id in the view; the list is replaced whole on every refresh.
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are never reordered in place
          <tr key={`${e.at}-${i}`}>
            <Td className="whitespace-nowrap" title={e.at}>
              {ago(e.at)}
            </Td>
            <Td>{e.type}</Td>
            <Td className="whitespace-nowrap">{e.object}</Td>
            <Td>{e.reason}</Td>
            <Td className="break-words" data-testid="event-message">
              {e.message}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
