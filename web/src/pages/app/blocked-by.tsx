/** Why an App does not sync: the dependencies (spec.dependsOn) that are not Synced and Healthy yet, and why. */
import type { AppView } from '../../api/types.ts';

export function BlockedBy({ app }: { app: AppView }) {
  const blocked = app.blocked_by ?? [];
  const deps = app.depends_on ?? [];
  if (blocked.length === 0) {
    if (deps.length === 0) return null;
    return <p className="text-sm text-zinc-500">Depends on {deps.join(', ')} (all ready)</p>;
  }
  return (
    <section
      aria-label="Blocked by"
      className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm dark:border-amber-900 dark:bg-amber-950"
    >
      <p className="font-medium">Waiting for its dependencies: it does not sync until they are Synced and Healthy.</p>
      <ul className="mt-1 list-disc pl-5">
        {blocked.map((b) => (
          <li key={b.app} data-testid="blocked-by">
            <span className="font-mono">{b.app}</span>: {b.reason}
          </li>
        ))}
      </ul>
    </section>
  );
}
