/**
 * What a Flux Kustomization or HelmRelease reads through its `sourceRef`/`chartRef`: the Git repository and branch
 * of a GitRepository, the chart repository URL of a HelmRepository or OCIRepository. A source that is not among the
 * imported documents, or that svc cannot follow (a tag, a commit, a semver range of commits), is a blocker.
 */

import type { MapContext } from './context.ts';
import { refOf } from './context.ts';
import type { Doc } from './types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The document a `sourceRef` names (its namespace defaults to the referrer's), or a blocker. */
export function resolveRef(
  ref: unknown,
  referrerNamespace: string | undefined,
  ctx: MapContext,
): { kind: string; namespace: string | undefined; name: string; doc: Doc } | { blocker: string } {
  if (!isObject(ref) || typeof ref['name'] !== 'string' || typeof ref['kind'] !== 'string') {
    return { blocker: 'no source reference (kind and name)' };
  }
  const kind = ref['kind'];
  const name = ref['name'];
  const namespace = typeof ref['namespace'] === 'string' ? ref['namespace'] : referrerNamespace;
  const doc = ctx.find(kind, namespace, name);
  if (!doc) {
    return {
      blocker: `its source ${kind} ${namespace ?? ''}/${name} is not among the imported documents: import it too`,
    };
  }
  return { kind, namespace, name, doc };
}

/** The URL and branch a GitRepository follows, or a blocker. Flux's default ref is the branch master. */
export function gitOf(doc: Doc): { repoURL: string; branch: string } | { blocker: string } {
  const spec = isObject(doc['spec']) ? doc['spec'] : {};
  const url = typeof spec['url'] === 'string' ? spec['url'] : '';
  const ref = isObject(spec['ref']) ? spec['ref'] : {};
  const r = refOf(doc);
  for (const pin of ['tag', 'semver', 'commit', 'name'] as const) {
    if (ref[pin] !== undefined) {
      return {
        blocker: `GitRepository ${r.namespace ?? ''}/${r.name} follows a ${pin === 'name' ? 'reference' : pin} (spec.ref.${pin}): svc Git sources follow a branch`,
      };
    }
  }
  const branch = typeof ref['branch'] === 'string' ? ref['branch'] : 'master';
  return { repoURL: url, branch };
}

/** The chart repository URL of a HelmRepository (`oci://…` for type oci). */
export function helmRepositoryURL(doc: Doc): string {
  const spec = isObject(doc['spec']) ? doc['spec'] : {};
  const url = typeof spec['url'] === 'string' ? spec['url'] : '';
  return spec['type'] === 'oci' && !/^oci:\/\//i.test(url) ? `oci://${url.replace(/^[a-z]+:\/\//i, '')}` : url;
}

/** An OCIRepository's chart: its URL split into the registry path and the chart name, and its version. */
export function ociChartOf(doc: Doc): { repoURL: string; chart: string; version?: string } | { blocker: string } {
  const spec = isObject(doc['spec']) ? doc['spec'] : {};
  const url = typeof spec['url'] === 'string' ? spec['url'].replace(/\/+$/, '') : '';
  const slash = url.lastIndexOf('/');
  if (!/^oci:\/\/[^/]+\/.+/i.test(url) || slash < 0)
    return { blocker: 'OCIRepository spec.url is not oci://host/…/chart' };
  const ref = isObject(spec['ref']) ? spec['ref'] : {};
  if (ref['digest'] !== undefined)
    return { blocker: 'OCIRepository pins a digest (spec.ref.digest): svc HelmChart sources take a version or range' };
  const version =
    typeof ref['semver'] === 'string' ? ref['semver'] : typeof ref['tag'] === 'string' ? ref['tag'] : undefined;
  return {
    repoURL: url.slice(0, slash),
    chart: url.slice(slash + 1),
    ...(version && version !== 'latest' ? { version } : {}),
  };
}

/** A Flux path (`./kustomize`) as an svc path (`kustomize`); undefined for the repository root. */
export function fluxPath(path: unknown): string | undefined {
  if (typeof path !== 'string') return undefined;
  const p = path.replace(/^\.\/+/, '').replace(/\/+$/, '');
  return p === '' || p === '.' ? undefined : p;
}
