/**
 * An incident's timeline, oldest first: svc's events (opened, remediations, sync and health edges), the operations
 * the App finished meanwhile, and each webhook delivery of those events.
 */
import { Link } from '@tanstack/react-router';
import type { TimelineEntry } from '../../api/types.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Empty } from '../../components/ui/feedback.tsx';
import { countOf, localTime } from '../../lib/format.ts';

type Data = Record<string, unknown>;
const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));

function Summary({ entry }: { entry: TimelineEntry }) {
  if (entry.kind === 'delivery') {
    return (
      <>
        <span>
          delivery of <code>{entry.event_type}</code> to{' '}
          <Link to="/webhooks/$id" params={{ id: entry.webhook_id ?? '' }}>
            {entry.webhook_id}
          </Link>
        </span>{' '}
        <StatusBadge value={entry.state} /> {countOf(entry.attempts ?? 0, 'attempt')}
        {entry.response_code != null ? `, HTTP ${entry.response_code}` : ''}
        {entry.latency_ms != null ? `, ${entry.latency_ms} ms` : ''}
      </>
    );
  }
  const data = (entry.data ?? {}) as Data;
  if (entry.kind === 'operation') {
    return (
      <>
        <span>
          operation {text(data['kind'])} <code>{text(data['id']).slice(0, 8)}</code>
        </span>{' '}
        <StatusBadge value={text(data['phase'])} /> {text(data['message'])}
      </>
    );
  }
  const detail = [data['action'], data['cause'], data['reason'], data['message'], data['result'] ?? data['phase']]
    .map(text)
    .filter(Boolean)
    .join(' · ');
  return (
    <>
      <code>{entry.type}</code> {detail}
    </>
  );
}

export function Timeline({ entries }: { entries: TimelineEntry[] }) {
  if (entries.length === 0) return <Empty title="Nothing recorded yet" />;
  return (
    <ol aria-label="Timeline" className="space-y-1.5 border-l border-zinc-200 pl-4 text-sm dark:border-zinc-800">
      {entries.map((e) => (
        <li key={e.kind === 'delivery' ? e.delivery_id : `${e.event_id}`} data-kind={e.kind}>
          <time dateTime={e.at} className="mr-2 text-xs text-zinc-500">
            {localTime(e.at, 'time')}
          </time>
          <Summary entry={e} />
        </li>
      ))}
    </ol>
  );
}
