/** A benchmark's user: signed up through the auth component, org `bench` (namespace org-bench), an admin API key. */

export interface BenchAccount {
  /** The session cookie (`name=value`). */
  cookie: string;
  /** An org-wide admin API key. */
  key: string;
}

/** Signs up, creates org `bench` and mints an org-wide admin API key. */
export async function benchAccount(baseURL: string): Promise<BenchAccount> {
  const post = async (path: string, body: unknown, cookie?: string) => {
    const res = await fetch(`${baseURL}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: baseURL, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  const signUp = await post('/api/auth/sign-up/email', {
    email: 'bench@example.com',
    password: 'correct horse battery staple',
    name: 'Bench',
  });
  const cookie = signUp.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  await post('/api/auth/organization/create', { name: 'Bench', slug: 'bench' }, cookie);
  const minted = (await (
    await post(
      '/api/v1/auth/api-keys',
      { name: 'bench', role: 'admin', scope: 'org', scope_id: '', expires_days: 0 },
      cookie,
    )
  ).json()) as { key: string };
  return { cookie, key: minted.key };
}
