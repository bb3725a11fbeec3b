/**
 * Defence in depth for what MCP tools return to agents: no value may carry a credential. The services already
 * never return kubeconfigs, sealed credentials or key hashes; what can still slip through is text a user wrote,
 * such as a Git URL with a password in it (`https://bot:token@git.example/…`) echoed in an App's source or a
 * condition message, or an API key pasted somewhere. Both are masked here.
 */

/** `scheme://user:password@` → `scheme://user:***@` (any scheme, any user, password up to the `@`). */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):[^\s/@]+@/gi;
/** svc API keys (`svc_` + 43 base64url characters) and anything shaped like one. */
const API_KEY = /\bsvc_[A-Za-z0-9_-]{16,}/g;

/** `text` with URL passwords and API keys masked. */
export function redactText(text: string): string {
  return text.replace(URL_PASSWORD, '$1:***@').replace(API_KEY, 'svc_***');
}

/** A deep copy of a JSON-shaped value with every string passed through `redactText` (object keys included). */
export function redactCredentials(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map(redactCredentials);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactText(k), redactCredentials(v)]));
  }
  return value;
}
