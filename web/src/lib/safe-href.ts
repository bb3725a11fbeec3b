/**
 * The href a link may carry: http(s) URLs only. Anything else (javascript:, data:, relative junk from an App's
 * status or source) is not made a link at all, so text from the cluster can never run as script.
 */
export function safeHref(url: string | undefined | null): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
