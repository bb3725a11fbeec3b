/** Durations as svc reads them everywhere (flags, settings, `wait` queries, the client's `--timeout`). Pure. */

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a duration such as `500ms`, `30s`, `5m`, `1h` or `1m30s` (a bare number is seconds). Undefined when invalid. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * (UNITS[p[2] as string] ?? 0), 0));
}
