/** Short forms for revisions, times and counts. */

/** The first 7 characters of a commit, the first 12 hex digits of an image digest. */
export function shortRevision(rev: string | undefined | null): string {
  if (!rev) return '—';
  if (rev.startsWith('sha256:')) return rev.slice(0, 19);
  return rev.slice(0, 7);
}

/** "3 min ago" style, from an ISO time ('' → '—'). */
export function ago(iso: string | undefined | null, now = Date.now()): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '—';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

/** An ISO time in the reader's locale: its date, its time, or both (`none` when there is no time). */
export function localTime(iso: string | undefined | null, part: 'date' | 'time' | 'both' = 'both', none = '—'): string {
  if (!iso) return none;
  const t = new Date(iso);
  if (part === 'date') return t.toLocaleDateString();
  if (part === 'time') return t.toLocaleTimeString();
  return t.toLocaleString();
}

/**
 * The one number format for counts on every page: the reader's locale, digits grouped ("10,001" in English), so a
 * count never reads "10001" on one page and "1,667" on another. `locale` is for tests.
 */
export function formatCount(n: number | undefined | null, locale?: string): string {
  if (n === undefined || n === null || Number.isNaN(n)) return '—';
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(n);
}

/** A count and its noun, singular for exactly one: "1 app", "10,001 apps" (`plural` when not just noun + s). */
export function countOf(n: number, noun: string, plural = `${noun}s`, locale?: string): string {
  return `${formatCount(n, locale)} ${n === 1 ? noun : plural}`;
}
