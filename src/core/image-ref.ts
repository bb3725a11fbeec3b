/**
 * Image references as the OCI distribution spec writes them: registry hosts, repository paths, tags and digests.
 * Pure. The API validates App specs and registry records with these rules, the registry client refuses anything
 * else before it builds a URL (so a spec can never steer a request to another path), and the image driver and the
 * tag poller split `spec.source.image` into where to ask and what to render.
 */
import type { ImageSource } from './app-schema.ts';

/** A registry host: a DNS name or IPv4 address, optionally with a port; or a bracketed IPv6 address with one. */
const HOST =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:.]+\])(?::\d{1,5})?$/;
/** One path component of a repository (distribution's grammar). */
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;

/** Docker Hub as image references name it, and where its registry API answers. */
export const DOCKER_HUB = { names: ['docker.io', 'index.docker.io'], apiHost: 'registry-1.docker.io' } as const;

/** Whether `value` is a registry host (`name[:port]`, no scheme, no path). */
export function isRegistryHost(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 253 || !HOST.test(value)) return false;
  const port = /:(\d+)$/.exec(value.replace(/^\[[^\]]*\]/, ''))?.[1];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

/** Whether `value` is a repository path (`team/web`): lowercase components joined by `/`. */
export function isRepositoryPath(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 255 && value.split('/').every((c) => COMPONENT.test(c));
}

/** Whether `value` is a tag (`1.4.2`, `latest`). */
export function isTag(value: unknown): value is string {
  return typeof value === 'string' && TAG.test(value);
}

/** Whether `value` is a content digest (`sha256:<hex>`). */
export function isDigest(value: unknown): value is string {
  return typeof value === 'string' && DIGEST.test(value);
}

/** Whether `value` is a reference a manifest can be fetched by: a tag or a digest. */
export function isReference(value: unknown): value is string {
  return isTag(value) || isDigest(value);
}

/** A repository split into the host of its registry API and the path on it. */
export interface RepositoryLocation {
  /** Host the registry API answers on (`registry-1.docker.io` for Docker Hub). */
  host: string;
  /** Repository path on that host (`library/nginx` for `nginx`). */
  path: string;
}

/**
 * Splits a full repository (`registry.example.com:5000/team/web`, `team/web`, `nginx`) as container runtimes do: a
 * first component with a dot or a port, or `localhost`, is the host; otherwise it is Docker Hub, where one-component
 * names live under `library/`. Undefined when the rest is not a repository path.
 */
export function splitRepository(repository: string): RepositoryLocation | undefined {
  const slash = repository.indexOf('/');
  const first = slash < 0 ? '' : repository.slice(0, slash);
  const hasHost = first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasHost) {
    const path = repository.slice(slash + 1);
    if (!isRegistryHost(first) || !isRepositoryPath(path)) return undefined;
    const host = (DOCKER_HUB.names as readonly string[]).includes(first) ? DOCKER_HUB.apiHost : first;
    return { host, path: host === DOCKER_HUB.apiHost && !path.includes('/') ? `library/${path}` : path };
  }
  if (!isRepositoryPath(repository)) return undefined;
  return { host: DOCKER_HUB.apiHost, path: repository.includes('/') ? repository : `library/${repository}` };
}

/**
 * The image name a Pod pulls (without tag or digest): the repository as written, or with a `registryRef` the
 * registry's host joined with the repository, which is then relative to it.
 */
export function imageName(image: Pick<ImageSource, 'repository'>, registryHost: string | undefined): string {
  return registryHost === undefined ? image.repository : `${registryHost}/${image.repository}`;
}

/**
 * Why an image source cannot work, or an empty list: repository (a path relative to the registry with
 * `registryRef`, else a full repository), tag (a tag, or a digest to pin one), `registryRef` (a DNS-1123 label),
 * env entries with exactly one of value / secretRef / store, an Ingress with a host, autoscaling bounds in order.
 * Messages name the field under `prefix` (e.g. `source.image`).
 */
export function imageSourceProblems(image: ImageSource, prefix: string): string[] {
  const problems = repositoryProblems(image, prefix);
  if (!isReference(image.tag)) problems.push(`${prefix}.tag must be a tag (e.g. 1.4.2) or a digest (sha256:…)`);
  for (const [i, env] of (image.workload?.env ?? []).entries()) {
    const kinds = [env.value, env.secretRef, env.store].filter((v) => v !== undefined).length;
    if (kinds !== 1) problems.push(`${prefix}.workload.env[${i}] must set exactly one of value, secretRef, store`);
  }
  const ingress = image.ingress;
  if (ingress?.enabled === true && !isIngressHost(ingress.host)) {
    problems.push(`${prefix}.ingress.host must be a DNS name when the ingress is enabled`);
  }
  const scaling = image.autoscaling;
  if (scaling?.min !== undefined && scaling.max !== undefined && scaling.min > scaling.max) {
    problems.push(`${prefix}.autoscaling.min must not exceed autoscaling.max`);
  }
  return problems;
}

/** The repository: relative to the registry with `registryRef` (itself a DNS-1123 label), else a full one. */
function repositoryProblems(image: ImageSource, prefix: string): string[] {
  if (image.registryRef === undefined) {
    return splitRepository(image.repository)
      ? []
      : [`${prefix}.repository must be an image repository such as registry.example.com/team/web`];
  }
  const problems: string[] = [];
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(image.registryRef) || image.registryRef.length > 63) {
    problems.push(`${prefix}.registryRef must name a registry (a DNS-1123 label)`);
  }
  if (!isRepositoryPath(image.repository)) {
    problems.push(
      `${prefix}.repository must be a path relative to the registry (lowercase, e.g. team/web) when registryRef is set`,
    );
  }
  return problems;
}

function isIngressHost(host: unknown): host is string {
  return (
    typeof host === 'string' &&
    host.length <= 253 &&
    /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(host)
  );
}
