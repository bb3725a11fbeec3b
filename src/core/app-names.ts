/**
 * The App resource's names (group, version, kind, plural, managed label, source types) without its schema: `./app-schema.ts`
 * re-exports them, and the operator imports them from here so `svc operator` does not load TypeBox (about 16 MiB
 * of resident memory, bench/README.md) for a handful of strings; it needs the schema's types only.
 */
export const APP_GROUP = 'cd.svc.space';
export const APP_VERSION = 'v1alpha1';
export const APP_API_VERSION = `${APP_GROUP}/${APP_VERSION}`;
export const APP_KIND = 'App';
export const APP_PLURAL = 'apps';
export const APP_SINGULAR = 'app';
export const APP_SHORT_NAME = 'app';
/** Label carried by every object the operator applies for an App; its value is the App's name. */
export const MANAGED_LABEL = 'cd.svc.space/app';
/** On an App: `orphan` keeps applied objects when the App is deleted; default `cascade`. */
export const DELETE_POLICY_ANNOTATION = 'cd.svc.space/delete-policy';
/** The source types an App may name (`spec.source.type`); which of them deploy is `DEPLOYABLE_SOURCE_TYPES`. */
export const SOURCE_TYPES = ['Git', 'Image', 'HelmChart', 'Catalog'] as const;
/** The phases of a staged sync (src/engine/sync-plan.ts), as `operationState.syncPhase` shows them. */
export const SYNC_PHASES = ['PreSync', 'Sync', 'PostSync', 'SyncFail'] as const;
/** At most this many objects are listed in `operationState.resources` (the rest are counted, not listed). */
export const MAX_OPERATION_RESOURCES = 1000;

/** The AppSet resource (issue 27): a template of an App and the generators that stamp it out, in an org namespace. */
export const APPSET_KIND = 'AppSet';
export const APPSET_PLURAL = 'appsets';
export const APPSET_SINGULAR = 'appset';
/** Label carried by every App an AppSet generated; its value is the AppSet's name. */
export const APPSET_LABEL = 'cd.svc.space/appset';
