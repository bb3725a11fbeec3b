/**
 * Ordering of resourceVersions, for caches that must not let an older answer replace a newer one. Kubernetes 1.35
 * made them comparable for objects of one resource (KEP-5504, apimachinery's
 * `resourceversion.CompareResourceVersion`): a positive decimal integer without leading zeros, a greater one being
 * newer (etcd3 storage issues its growing revision numbers). Anything else (an aggregated API with opaque versions)
 * is not comparable.
 */

const DECIMAL = /^[1-9][0-9]*$/;

/** -1, 0 or 1 as `a` is older than, equal to or newer than `b`; undefined when either is not comparable. */
export function compareVersions(a: string | undefined, b: string | undefined): -1 | 0 | 1 | undefined {
  if (a === undefined || b === undefined || !DECIMAL.test(a) || !DECIMAL.test(b)) return undefined;
  // Without leading zeros, a longer number is the greater one; equal lengths compare as strings (beyond 2^53 too).
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
