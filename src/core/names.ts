/** Name rules shared by the API, the operator and the CLI. */

/** A DNS-1123 label as a JSON-schema `pattern` (route schemas, so the OpenAPI document states the rule). */
export const DNS1123_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const DNS1123_LABEL = new RegExp(DNS1123_LABEL_PATTERN);
/** Maximum length of a DNS-1123 label. */
export const DNS1123_LABEL_MAX = 63;

/** Whether `value` is a DNS-1123 label: lowercase alphanumerics and '-', alphanumeric at both ends, 1–63 chars. */
export function isDnsLabel(value: unknown): value is string {
  return typeof value === 'string' && value.length <= DNS1123_LABEL_MAX && DNS1123_LABEL.test(value);
}

/**
 * Why `value` is not a DNS-1123 label, naming the field, or undefined when it is one.
 * The message is meant for API callers.
 */
export function dnsLabelProblem(field: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return `${field} is required and must be a string`;
  if (value.length > DNS1123_LABEL_MAX) return `${field} must be at most ${DNS1123_LABEL_MAX} characters`;
  if (!DNS1123_LABEL.test(value)) {
    return `${field} "${value}" must be a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit`;
  }
  return undefined;
}

/** Prefix of the namespace that holds an org's App resources on the management cluster. */
export const ORG_NAMESPACE_PREFIX = 'org-';

/** The management-cluster namespace of the org with this slug: `org-<slug>`. Throws on a slug that cannot form one. */
export function orgNamespace(slug: string): string {
  const ns = `${ORG_NAMESPACE_PREFIX}${slug}`;
  if (!isDnsLabel(ns)) throw new Error(`org slug "${slug}" does not form a valid namespace name`);
  return ns;
}

/** The org slug of an org namespace, or undefined when `namespace` is not one. */
export function orgSlugOf(namespace: string): string | undefined {
  return namespace.startsWith(ORG_NAMESPACE_PREFIX) ? namespace.slice(ORG_NAMESPACE_PREFIX.length) : undefined;
}

/** Kubernetes label key syntax: an optional DNS-subdomain prefix and `/`, then a name of 1–63 characters. */
const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * Why the keys of `labels` break Kubernetes label-key syntax, one message per bad key naming `field`; empty when
 * every key is one. (A key rule cannot be stated in the OpenAPI 3.0 document, so routes check it here.)
 */
export function labelKeyProblems(field: string, labels: Record<string, string> | undefined): string[] {
  return Object.keys(labels ?? {})
    .filter((key) => !LABEL_KEY.test(key))
    .map(
      (key) =>
        `${field}: ${JSON.stringify(key)} is not a Kubernetes label key (an optional DNS-subdomain prefix and '/', then 1–63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)`,
    );
}
