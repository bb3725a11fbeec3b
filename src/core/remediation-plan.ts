/**
 * What svc proposes to do about an incident (docs/incidents.md "Remediations"), from the App as it is and the last
 * revision the detector saw healthy. Each proposal names an action the operation routes already offer, so approving
 * it runs exactly what a person could have requested: rollback (to the last healthy revision), restart, re-sync, or
 * unfreeze. Pure.
 */
import type { AppResource } from './app-schema.ts';
import { inHistory } from './app-state.ts';

export const REMEDIATION_ACTIONS = ['rollback', 'restart', 'resync', 'unfreeze'] as const;
export type RemediationAction = (typeof REMEDIATION_ACTIONS)[number];

/** One proposal. */
export interface Proposal {
  action: RemediationAction;
  /** Rollback target. */
  revision?: string;
  /**
   * Rollback of an App with automated sync: approving also turns `syncPolicy.automated` off, since automated sync
   * would apply the branch head again at once (contract §3 rule 3) and undo the rollback.
   */
  pauseAutomated: boolean;
  /** Why svc proposes it. */
  why: string;
}

/**
 * The proposals for an incident of `cause` about `app`, most specific first. Rollback when the detector saw a
 * healthy revision that differs from the applied one and is still in the App's history; restart for bad health;
 * re-sync for a failed sync; unfreeze first when the App is frozen (every operation is held until then). A Stalled
 * App gets none: its spec must change, which no operation does.
 */
export function proposeRemediations(app: AppResource, cause: string, healthyRevision: string): Proposal[] {
  if (cause === 'Stalled') return [];
  const proposals: Proposal[] = [];
  if (app.spec.freeze === true) {
    proposals.push({
      action: 'unfreeze',
      pauseAutomated: false,
      why: 'the App is frozen (spec.freeze): every operation is held until it is unfrozen',
    });
  }
  const applied = app.status?.revision ?? '';
  if (healthyRevision !== '' && healthyRevision !== applied && inHistory(app, healthyRevision)) {
    const automated = app.spec.syncPolicy?.automated === true;
    proposals.push({
      action: 'rollback',
      revision: healthyRevision,
      pauseAutomated: automated,
      why: `revision ${healthyRevision} was the last one applied while the App was Healthy${
        automated
          ? '; automated sync is turned off so the rollback holds (turn it on again once upstream is fixed)'
          : ''
      }`,
    });
  }
  if (cause !== 'SyncFailed') {
    proposals.push({ action: 'restart', pauseAutomated: false, why: 'restart the workloads of the App' });
  }
  if (cause !== 'Degraded') {
    proposals.push({ action: 'resync', pauseAutomated: false, why: 'sync again (the failure may have passed)' });
  }
  return proposals;
}
