/**
 * A user of a running svc process over HTTP, as a browser or curl is: JSON calls to its base URL with the session
 * cookie the auth component set (or an API key), sign-up and org creation through /api/auth/*. For tests that start
 * svc as a process (`svc start`, `npm start`, `svc server`); in-process API servers have their own `call`
 * (test/integration/api-support.ts).
 */

/** The answer of one call: status, parsed JSON body, headers. */
export interface SvcAnswer<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** The password every user signed up this way gets. */
export const SVC_HTTP_PASSWORD = 'correct horse battery';

export class SvcHttp {
  readonly base: string;
  /** The session cookie (`name=value; …`) once signed up; sent with every call. */
  cookie = '';

  constructor(base: string) {
    this.base = base;
  }

  /**
   * `method path` with a JSON `body`, from the server's own origin (the auth component's CSRF check), with the
   * session cookie, or with `key` as a Bearer API key instead.
   */
  async call<T = any>(method: string, path: string, body?: unknown, key?: string): Promise<SvcAnswer<T>> {
    const headers: Record<string, string> = { origin: this.base };
    if (key) headers['authorization'] = `Bearer ${key}`;
    else if (this.cookie) headers['cookie'] = this.cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T, headers: res.headers };
  }

  /** Signs up `email` and keeps the session cookie; resolves with the sign-up's answer. */
  async signUp(email: string, name: string): Promise<SvcAnswer<{ user: { id: string } }>> {
    const answer = await this.call<{ user: { id: string } }>('POST', '/api/auth/sign-up/email', {
      email,
      password: SVC_HTTP_PASSWORD,
      name,
    });
    this.cookie = answer.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    return answer;
  }

  /** Creates an org (the session's active org afterwards). */
  createOrg(name: string, slug: string): Promise<SvcAnswer<{ id: string }>> {
    return this.call('POST', '/api/auth/organization/create', { name, slug });
  }
}
