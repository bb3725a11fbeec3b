/**
 * The labels and annotations svc puts on what it manages. Every applied object carries the App's name AND the
 * App's own namespace, so two orgs' Apps with the same name never see (or prune) each other's objects.
 */
import { DELETE_POLICY_ANNOTATION, MANAGED_LABEL } from '../core/app-names.ts';

export { DELETE_POLICY_ANNOTATION, MANAGED_LABEL };
/** The namespace of the App resource (the org namespace) that owns an object. Beyond the contract. */
export const OWNER_NAMESPACE_LABEL = 'cd.svc.space/app-namespace';
/** On a destination namespace svc created: the App it was created for. Not the managed label, so never pruned. */
export const CREATED_FOR_LABEL = 'cd.svc.space/created-for-app';
/** Pod-template annotation bumped by the Restart operation. */
export const RESTARTED_AT_ANNOTATION = 'cd.svc.space/restartedAt';
/** Finalizer through which an App's deletion removes what it applied. */
export const FINALIZER = 'cd.svc.space/resources';

/** Identifies one App: its own namespace (org) and name. */
export interface AppKey {
  namespace: string;
  name: string;
}

/** The label selector of every object an App applied. */
export function managedSelector(app: AppKey): string {
  return `${MANAGED_LABEL}=${app.name},${OWNER_NAMESPACE_LABEL}=${app.namespace}`;
}

/** The labels stamped on every applied object. */
export function managedLabels(app: AppKey): Record<string, string> {
  return { [MANAGED_LABEL]: app.name, [OWNER_NAMESPACE_LABEL]: app.namespace };
}

/**
 * The labels of a destination namespace svc creates for an App: the App it was created for, not the managed label,
 * so prune and cascade deletion never remove it.
 */
export function createdForLabels(app: AppKey): Record<string, string> {
  return { [CREATED_FOR_LABEL]: app.name, [OWNER_NAMESPACE_LABEL]: app.namespace };
}

/** The App an object's two labels name, or undefined when either label is missing. */
export function ownerOf(obj: { metadata: { labels?: Record<string, string> } }): AppKey | undefined {
  const name = obj.metadata.labels?.[MANAGED_LABEL];
  const namespace = obj.metadata.labels?.[OWNER_NAMESPACE_LABEL];
  return name && namespace ? { namespace, name } : undefined;
}

/** True when both of the object's labels name `app` (so it is this App's to prune or delete). */
export function isOwnedBy(obj: { metadata: { labels?: Record<string, string> } }, app: AppKey): boolean {
  const owner = ownerOf(obj);
  return owner?.name === app.name && owner.namespace === app.namespace;
}
