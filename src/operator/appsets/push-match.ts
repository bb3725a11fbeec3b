/**
 * Which AppSets a push concerns (issue 27: a push re-runs the Git generators at once, as Argo CD's ApplicationSet
 * webhook does). An AppSet opts in the way its Apps do, through its template's `spec.webhook`: `enabled`, and a
 * `secretRef` (a Secret of the AppSet's namespace) when deliveries are signed. It matches a push when one of its
 * Git generators (matrix and merge children included) reads a repository the push names, exactly as an App's
 * repoURL matches (contract §4.6 step 3), at the pushed branch. Pure.
 */
import type { AppSetResource } from '../../core/appset-schema.ts';
import { leavesOf } from '../../engine/appset-inputs.ts';
import type { PushEvent } from '../webhook/push.ts';

/** True when `appSet` opts in to push events and one of its Git generators reads the pushed branch. */
export function appSetMatchesPush(appSet: AppSetResource, push: PushEvent): boolean {
  if (appSet.spec.template.spec.webhook?.enabled !== true) return false;
  return leavesOf(appSet).some((g) => {
    const git = g.gitDirectories ?? g.gitFiles;
    return git !== undefined && push.urls.includes(git.repoURL) && push.ref === `refs/heads/${git.revision ?? 'main'}`;
  });
}

/**
 * The Secret name that signs the AppSet's push deliveries, undefined when they are not signed. A name the template
 * fills from generator parameters (`{{ … }}`) names no one Secret: such an AppSet cannot verify a push and is not
 * refreshed by one (`unverifiable`).
 */
export function appSetPushSecret(appSet: AppSetResource): { name?: string; unverifiable: boolean } {
  const name = appSet.spec.template.spec.webhook?.secretRef;
  if (name === undefined) return { unverifiable: false };
  return name.includes('{{') ? { unverifiable: true } : { name, unverifiable: false };
}
