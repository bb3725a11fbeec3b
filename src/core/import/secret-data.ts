/**
 * Reading the data of a Kubernetes Secret document (base64 `data` and plain `stringData`, as `kubectl apply` merges
 * them) and the registry credentials of a `kubernetes.io/dockerconfigjson` Secret. The values are credentials: they
 * go only into ImportCredentials, never into a report.
 */
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The keys of a Secret document and their decoded values (`stringData` over `data`). */
export function secretData(doc: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  const data = doc['data'];
  if (isObject(data)) {
    for (const [k, v] of Object.entries(data)) {
      if (typeof v === 'string') out.set(k, Buffer.from(v, 'base64').toString('utf8'));
    }
  }
  const plain = doc['stringData'];
  if (isObject(plain)) for (const [k, v] of Object.entries(plain)) if (typeof v === 'string') out.set(k, v);
  return out;
}

/** One registry's credentials from a dockerconfigjson. */
export interface DockerAuth {
  host: string;
  username: string;
  password: string;
}

/** The registries of a `.dockerconfigjson` value (user name and password, or the base64 `auth` pair). */
export function dockerAuths(json: string | undefined): DockerAuth[] {
  if (json === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  const auths = isObject(parsed) && isObject(parsed['auths']) ? parsed['auths'] : {};
  return Object.entries(auths).flatMap(([host, entry]) => {
    const pair = isObject(entry) ? userAndPassword(entry) : undefined;
    return pair ? [{ host: registryHost(host), ...pair }] : [];
  });
}

/** The user name and password of one `auths` entry: its own fields, else the base64 `user:password` of `auth`. */
function userAndPassword(entry: Record<string, unknown>): { username: string; password: string } | undefined {
  const username = typeof entry['username'] === 'string' ? entry['username'] : '';
  const password = typeof entry['password'] === 'string' ? entry['password'] : '';
  if (username && password) return { username, password };
  if (typeof entry['auth'] !== 'string') return undefined;
  const pair = Buffer.from(entry['auth'], 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  return colon > 0 && colon < pair.length - 1
    ? { username: pair.slice(0, colon), password: pair.slice(colon + 1) }
    : undefined;
}

/** `https://index.docker.io/v1/` → `index.docker.io`; `ghcr.io` stays. */
function registryHost(key: string): string {
  return key.replace(/^https?:\/\//i, '').replace(/\/.*$/, '');
}
