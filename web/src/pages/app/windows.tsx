/**
 * The App's delivery windows (its own, its cluster's, its org's): which window blocks syncs now and when it opens,
 * or which allow window is open. Shown only when the App has windows.
 */
import { useWindows } from '../../api/apps.ts';

export function DeliveryWindows({ namespace, name }: { namespace: string; name: string }) {
  const windows = useWindows(namespace, name);
  const w = windows.data;
  if (!w || w.windows.length === 0) return null;
  const tone = w.open
    ? 'border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-900'
    : 'border-amber-300 bg-amber-50 dark:border-amber-900 dark:bg-amber-950';
  return (
    <section aria-label="Delivery windows" className={`rounded-md border px-3 py-2 text-sm ${tone}`}>
      {w.open ? (
        <p>
          Syncs allowed now
          {w.active.length > 0 ? ` (inside ${w.active.map((a) => `${a.source} window "${a.name}"`).join(', ')})` : ''}
        </p>
      ) : (
        <p>
          Syncs held: {w.message}
          {w.changes_at ? ` · may open at ${w.changes_at}` : ''}
        </p>
      )}
      <p className="text-zinc-600 dark:text-zinc-400">
        Windows:{' '}
        {w.windows
          .map((x) => `${x.kind} "${x.name}" (${x.source}: ${x.schedule} for ${x.duration}, ${x.time_zone})`)
          .join('; ')}
      </p>
    </section>
  );
}
