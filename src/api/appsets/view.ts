/** The AppSet object of /appsets (./contract.ts) from the resource. */
import type { AppSetResource, RolloutStepState } from '../../core/appset-schema.ts';

/** Where a rolling sync is, as the API answers it. */
export interface RolloutView {
  current_step: number;
  steps: { step: number; state: RolloutStepState; apps: string[]; unmatched: boolean }[];
  stopped: { step: number; app: string; reason: string } | null;
}

/** The API's view of status.rollout (null without a rolling sync or before its first run). */
function rolloutView(set: AppSetResource): RolloutView | null {
  const r = set.status?.rollout;
  if (!r || !set.spec.strategy) return null;
  return {
    current_step: r.currentStep,
    steps: r.steps.map((s) => ({ step: s.step, state: s.state, apps: s.apps, unmatched: s.unmatched === true })),
    stopped: r.stopped ? { step: r.stopped.step, app: r.stopped.app, reason: r.stopped.reason } : null,
  };
}

/** An AppSet as the API answers it. */
export interface AppSetView {
  name: string;
  generators: AppSetResource['spec']['generators'];
  template: AppSetResource['spec']['template'];
  sync_policy: NonNullable<AppSetResource['spec']['syncPolicy']>;
  apps: { name: string; namespace: string; sync_status: string; health: string }[];
  strategy?: NonNullable<AppSetResource['spec']['strategy']>;
  rollout: RolloutView | null;
  errors: string[];
  generated: boolean;
  created_at: string;
}

/** The API's view of an AppSet resource. */
export function appSetView(set: AppSetResource): AppSetView {
  const status = set.status ?? {};
  return {
    name: set.metadata.name,
    generators: set.spec.generators,
    template: set.spec.template,
    sync_policy: set.spec.syncPolicy ?? {},
    apps: (status.apps ?? []).map((a) => ({
      name: a.name,
      namespace: a.namespace ?? '',
      sync_status: a.syncStatus ?? '',
      health: a.healthStatus ?? '',
    })),
    ...(set.spec.strategy ? { strategy: set.spec.strategy } : {}),
    rollout: rolloutView(set),
    errors: status.errors ?? [],
    generated: status.observedGeneration !== undefined && status.observedGeneration === set.metadata.generation,
    created_at: set.metadata.creationTimestamp ?? new Date(0).toISOString(),
  };
}
