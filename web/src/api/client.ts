/**
 * The one way the UI talks to svc: JSON over fetch on the same origin, the session cookie sent by the browser.
 * Every `{"error"}` answer becomes an ApiError carrying the status and the server's message, shown as it is.
 */

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** Sends a request; `body` is sent as JSON. Resolves with the parsed JSON answer (or undefined for an empty one). */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers:
      body === undefined
        ? { accept: 'application/json' }
        : { 'content-type': 'application/json', accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const message =
      (parsed as { error?: unknown; message?: unknown } | undefined)?.error ??
      (parsed as { message?: unknown } | undefined)?.message ??
      `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, typeof message === 'string' ? message : JSON.stringify(message));
  }
  return parsed as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body ?? {});
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);

/** A path segment, encoded. */
export const seg = (s: string) => encodeURIComponent(s);
