/**
 * An AppSet's rolling sync (spec.strategy.rollingSync, issue 27 item 2) on the AppSets page: each step with its
 * state and Apps, the current one marked, and why the rollout stopped (the App that stopped it: Degraded, or its
 * sync failed).
 */
import type { AppSetView } from '../api/types.ts';
import { StatusBadge } from '../components/ui/badge.tsx';

export function AppSetRollout({ set }: { set: AppSetView }) {
  if (!set.strategy) return null;
  const r = set.rollout;
  const label = `Rolling sync of ${set.name}`;
  if (!r) {
    return (
      <p data-rollout="pending" className="text-sm text-zinc-500">
        Rolling sync: not started yet.
      </p>
    );
  }
  return (
    <section aria-label={label} data-rollout={r.stopped ? 'stopped' : 'running'} className="space-y-2 text-sm">
      <p className="font-medium">
        Rolling sync: {r.current_step === 0 ? 'every step done' : `at step ${r.current_step} of ${r.steps.length}`}
      </p>
      <ol className="flex flex-wrap gap-2">
        {r.steps.map((s) => (
          <li
            key={s.step}
            data-step={s.step}
            data-state={s.state}
            aria-current={s.step === r.current_step ? 'step' : undefined}
            className={`rounded-md border px-3 py-2 ${
              s.step === r.current_step
                ? 'border-blue-400 dark:border-blue-600'
                : 'border-zinc-200 dark:border-zinc-800'
            }`}
          >
            <div className="flex items-center gap-2">
              <span>Step {s.step}</span>
              <StatusBadge value={s.state} />
            </div>
            <div className="text-zinc-500">
              {s.apps.join(', ') || 'no Apps'}
              {s.unmatched ? ' (no step selects them)' : ''}
            </div>
          </li>
        ))}
      </ol>
      {r.stopped ? (
        <div
          role="alert"
          className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-300"
        >
          Rollout stopped at step {r.stopped.step} because of {r.stopped.app}: {r.stopped.reason}
        </div>
      ) : null}
    </section>
  );
}
