/**
 * Taking over from Argo CD and Flux without a restart (issue 28 item 2; docs/migrate.md "Steps and how to go back").
 * An App the import created carries two annotations until the user confirms or undoes the import:
 * - `cd.svc.space/import: pending`: the operator never prunes for it and orphans its objects when it is deleted
 *   (its forced server-side apply still takes the fields over from the old controller's field manager);
 * - `cd.svc.space/import-origin`: the imported object (where it lives) and what svc changed on it to make its
 *   controller let go, so undo can put it back.
 * Letting go: an Argo CD Application loses its resources finalizer (deleting it then leaves the live objects) and
 * its automated sync; a Flux Kustomization or HelmRelease is suspended. Nothing here talks to a cluster.
 */
import type { AnyObject } from '../kube-object.ts';

/** On an App the import created: `pending` until the import is confirmed or undone. */
export const IMPORT_ANNOTATION = 'cd.svc.space/import';
/** On an App the import created: the ImportOrigin JSON (where the imported object is, what to restore). */
export const IMPORT_ORIGIN_ANNOTATION = 'cd.svc.space/import-origin';
/** Argo CD's cascade-deletion finalizers (`resources-finalizer.argocd.argoproj.io` and its `/foreground` form). */
const ARGOCD_FINALIZER = 'resources-finalizer.argocd.argoproj.io';

/** What svc changed on the imported object, as it was before. */
export type Restore =
  | { kind: 'Application'; finalizers: string[]; automated: unknown }
  | { kind: 'Kustomization' | 'HelmRelease'; suspend: boolean | null };

/** The imported object an App came from, and (once let go) what to restore on undo. */
export interface ImportOrigin {
  /** The svc cluster the object lives in ('' = the management cluster); absent when read from YAML only. */
  cluster?: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  restore?: Restore;
}

/** Whether an App (its annotations) is still in its import's reversible state. */
export function importPending(annotations: Record<string, string> | undefined): boolean {
  return annotations?.[IMPORT_ANNOTATION] === 'pending';
}

/** The ImportOrigin an App records, or undefined (not imported, or the annotation is not ours). */
export function importOriginOf(annotations: Record<string, string> | undefined): ImportOrigin | undefined {
  const text = annotations?.[IMPORT_ORIGIN_ANNOTATION];
  if (!text) return undefined;
  try {
    const origin = JSON.parse(text) as ImportOrigin;
    return typeof origin.name === 'string' && typeof origin.kind === 'string' ? origin : undefined;
  } catch {
    return undefined;
  }
}

const FLUX_GROUPS: Record<string, string> = {
  Kustomization: 'kustomize.toolkit.fluxcd.io/',
  HelmRelease: 'helm.toolkit.fluxcd.io/',
};

/** The field managers each old controller applies with (Argo CD's application controller, Flux's controllers). */
const OLD_MANAGERS: Record<string, readonly string[]> = {
  Application: ['argocd-controller'],
  Kustomization: ['kustomize-controller'],
  HelmRelease: ['helm-controller'],
};

/** The field managers of the controller an imported object had (none for a kind svc does not let go). */
export function oldManagersOf(origin: { apiVersion: string; kind: string } | undefined): readonly string[] {
  if (!origin || letGoProblem(origin)) return [];
  return OLD_MANAGERS[origin.kind] ?? [];
}

/** Why the controller of `ref` cannot be told to let go by svc, or undefined when it can. */
export function letGoProblem(ref: { apiVersion: string; kind: string }): string | undefined {
  if (ref.kind === 'Application' && ref.apiVersion.startsWith('argoproj.io/')) return undefined;
  const group = FLUX_GROUPS[ref.kind];
  if (group && ref.apiVersion.startsWith(group)) return undefined;
  return `${ref.kind} has no controller svc tells to let go`;
}

/**
 * The merge patch that makes the live object's controller let go, and what it was before. The patch carries the
 * object's resourceVersion, so a change made since it was read is a conflict, not overwritten.
 */
export function letGoPatch(live: AnyObject): { patch: Record<string, unknown>; restore: Restore } {
  const spec = (live['spec'] ?? {}) as Record<string, unknown>;
  const resourceVersion = live.metadata.resourceVersion;
  if (live.kind === 'Application') {
    const finalizers = Array.isArray(live.metadata['finalizers']) ? (live.metadata['finalizers'] as string[]) : [];
    const automated = (spec['syncPolicy'] as Record<string, unknown> | undefined)?.['automated'] ?? null;
    return {
      patch: {
        metadata: { resourceVersion, finalizers: finalizers.filter((f) => !f.startsWith(ARGOCD_FINALIZER)) },
        spec: { syncPolicy: { automated: null } },
      },
      restore: { kind: 'Application', finalizers, automated },
    };
  }
  const suspend = typeof spec['suspend'] === 'boolean' ? spec['suspend'] : null;
  return {
    patch: { metadata: { resourceVersion }, spec: { suspend: true } },
    restore: { kind: live.kind as 'Kustomization' | 'HelmRelease', suspend },
  };
}

/** The merge patch that puts back what `restore` recorded (the old controller resumes). */
export function restorePatch(restore: Restore): Record<string, unknown> {
  if (restore.kind === 'Application') {
    return { metadata: { finalizers: restore.finalizers }, spec: { syncPolicy: { automated: restore.automated } } };
  }
  return { spec: { suspend: restore.suspend } };
}
