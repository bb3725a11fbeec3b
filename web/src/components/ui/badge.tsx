import { cn } from '../../lib/cn.ts';

const TONES: Record<string, string> = {
  Synced: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  Healthy: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  Succeeded: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  OutOfSync: 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300',
  Progressing: 'bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300',
  Syncing: 'bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300',
  Running: 'bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300',
  Held: 'bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-300',
  Degraded: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
  Failed: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
  connected: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  disconnected: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
  error: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
  delivered: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  resolved: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  executed: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  pending: 'bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300',
  proposed: 'bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300',
  approved: 'bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-300',
  open: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
  failed: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
  critical: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
  warning: 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300',
  Done: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  Stopped: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
  Missing: 'bg-orange-100 text-orange-800 dark:bg-orange-950 dark:text-orange-300',
};

/** A status word in its colour (Synced, Degraded, …); the word itself is the accessible text. */
export function StatusBadge({ value, className }: { value: string | undefined; className?: string }) {
  return (
    <span
      className={cn(
        'inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap',
        TONES[value ?? ''] ?? 'bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300',
        className,
      )}
    >
      {value || 'Unknown'}
    </span>
  );
}

/** A connection test's outcome (registries, repositories): its status word, and the detail under it when there is one. */
export function TestedStatus({ status, detail }: { status: string | undefined; detail: string | null | undefined }) {
  return (
    <>
      <StatusBadge value={status} />
      {detail ? <p className="mt-1 text-xs text-zinc-500">{detail}</p> : null}
    </>
  );
}
