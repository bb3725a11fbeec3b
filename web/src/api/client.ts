/**
 * The one way the UI talks to svc: the generated API client (src/client) on the page's own origin, the session
 * cookie sent by the browser. Every answer that is not a 2xx becomes an ApiError carrying the status and the
 * server's message, shown as it is. The auth component's routes (/api/auth/*, Better Auth) are not in svc's API
 * document: ./auth.ts wraps them, with the same errors.
 */
import { createSvcClient, type Failure } from '../../../src/client/client.ts';

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** The ApiError of an answer: svc's `{"error"}`, Better Auth's `{"message"}`, else the status line. */
export function apiError({ status, statusText, message, body }: Failure): ApiError {
  const theirs = (body as { message?: unknown } | null | undefined)?.message;
  return new ApiError(status, message ?? (typeof theirs === 'string' ? theirs : `${status} ${statusText}`));
}

/** svc's REST API: `svc.GET('/api/v1/apps/{namespace}/{name}', { params: { path } })` answers the App. */
export const svc = createSvcClient({ baseUrl: '', failure: apiError });
