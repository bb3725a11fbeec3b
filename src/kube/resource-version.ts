/** Ordering of resourceVersions, for caches that must not let an older answer replace a newer one. */

/**
 * Orders two resourceVersions: negative when `a` is older, 0 when equal, positive when newer, undefined when they
 * cannot be compared. Kubernetes calls them opaque, but the apiserver (etcd3 storage) issues decimal revision
 * numbers that grow with every write; anything else is reported as incomparable.
 */
export function compareVersions(a: string | undefined, b: string | undefined): number | undefined {
  if (a === undefined || b === undefined || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
