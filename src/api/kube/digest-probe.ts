/**
 * Whether an image digest is present on a registry (for promote) and which digest a tag points at (for preview).
 * Registry clients with credentials come with the registries issue; the seam is this interface, and the default
 * speaks the OCI distribution API anonymously (with the bearer-token challenge public registries use).
 */

export interface DigestProbe {
  /** The digest `repository:tag` resolves to, or undefined when it cannot be resolved. */
  resolve(repository: string, tag: string): Promise<string | undefined>;
  /** Whether `repository@digest` exists. */
  has(repository: string, digest: string): Promise<boolean>;
}

const MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

/** Splits `host[:port]/path` into registry host and repository path (Docker Hub when no host is given). */
export function splitRepository(repository: string): { host: string; path: string } {
  const first = repository.split('/')[0] ?? '';
  const hasHost = repository.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasHost) return { host: first, path: repository.slice(first.length + 1) };
  const path = repository.includes('/') ? repository : `library/${repository}`;
  return { host: 'registry-1.docker.io', path };
}

function isLoopback(host: string): boolean {
  const name = host.replace(/:\d+$/, '');
  return name === 'localhost' || name === '127.0.0.1' || name === '[::1]';
}

async function headManifest(repository: string, reference: string): Promise<Response | undefined> {
  const { host, path } = splitRepository(repository);
  const url = `${isLoopback(host) ? 'http' : 'https'}://${host}/v2/${path}/manifests/${reference}`;
  const headers: Record<string, string> = { accept: MANIFEST_TYPES };
  try {
    let res = await fetch(url, { method: 'HEAD', headers, signal: AbortSignal.timeout(10_000) });
    const challenge = res.headers.get('www-authenticate') ?? '';
    if (res.status === 401 && /^bearer /i.test(challenge)) {
      const params = Object.fromEntries([...challenge.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      if (params['realm']) {
        const tokenURL = new URL(params['realm']);
        if (params['service']) tokenURL.searchParams.set('service', params['service']);
        tokenURL.searchParams.set('scope', params['scope'] ?? `repository:${path}:pull`);
        const tokenRes = await fetch(tokenURL, { signal: AbortSignal.timeout(10_000) });
        const body = (await tokenRes.json()) as { token?: string; access_token?: string };
        const token = body.token ?? body.access_token;
        if (token) {
          res = await fetch(url, {
            method: 'HEAD',
            headers: { ...headers, authorization: `Bearer ${token}` },
            signal: AbortSignal.timeout(10_000),
          });
        }
      }
    }
    return res;
  } catch {
    return undefined;
  }
}

/** The default probe: anonymous OCI distribution HEAD requests. */
export const anonymousDigestProbe: DigestProbe = {
  async resolve(repository, tag) {
    const res = await headManifest(repository, tag);
    return res?.ok ? (res.headers.get('docker-content-digest') ?? undefined) : undefined;
  },
  async has(repository, digest) {
    const res = await headManifest(repository, digest);
    return res?.ok === true;
  },
};
