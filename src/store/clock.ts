/** Timestamps of rows that one step writes together and that must sort in the order they were written. */

let last = 0;

/**
 * `now` as ISO 8601, made strictly later than the previous call in this process (by a millisecond when needed), so
 * the rows one step records together (an incident's events, its proposals) sort as they were recorded.
 */
export function orderedStamp(now: Date): string {
  last = Math.max(now.getTime(), last + 1);
  return new Date(last).toISOString();
}
