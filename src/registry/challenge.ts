/**
 * `WWW-Authenticate` challenges of registries (RFC 7235 as the distribution token spec uses it):
 * `Basic realm="…"` or `Bearer realm="https://auth/token",service="registry",scope="repository:team/web:pull"`.
 */

/** A parsed challenge: its scheme (lower case) and parameters. */
export interface Challenge {
  scheme: 'basic' | 'bearer';
  params: Record<string, string>;
}

/**
 * The first Basic or Bearer challenge of a `WWW-Authenticate` header value, or undefined when it has neither.
 * Parameter values may be quoted (with `\"` escapes) or bare tokens.
 */
export function parseChallenge(header: string | null | undefined): Challenge | undefined {
  if (!header) return undefined;
  const m = /^\s*(basic|bearer)\b\s*(.*)$/i.exec(header);
  if (!m) return undefined;
  const scheme = (m[1] as string).toLowerCase() as Challenge['scheme'];
  const params: Record<string, string> = {};
  for (const p of (m[2] ?? '').matchAll(/([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    params[(p[1] as string).toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : (p[3] ?? '');
  }
  return { scheme, params };
}
