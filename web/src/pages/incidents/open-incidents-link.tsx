import { Link } from '@tanstack/react-router';
import { useIncidents } from '../../api/incidents.ts';
import { countOf } from '../../lib/format.ts';

/** On an App's page: how many incidents are open about it, linking to them (nothing when none). */
export function OpenIncidentsLink({ app }: { app: string }) {
  const incidents = useIncidents({ state: 'open', app });
  const n = incidents.data?.incidents?.length ?? 0;
  if (n === 0) return null;
  return (
    <Link
      to="/incidents"
      search={{ state: 'open', app }}
      className="inline-flex items-center rounded bg-red-100 px-2 py-1 text-sm font-medium text-red-800 no-underline dark:bg-red-950 dark:text-red-300"
    >
      {countOf(n, 'open incident')}
    </Link>
  );
}
