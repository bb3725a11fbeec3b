/** The AppSet object of /appsets (./contract.ts) from the resource. */
import type { AppSetResource } from '../../core/appset-schema.ts';

/** An AppSet as the API answers it. */
export interface AppSetView {
  name: string;
  generators: AppSetResource['spec']['generators'];
  template: AppSetResource['spec']['template'];
  sync_policy: NonNullable<AppSetResource['spec']['syncPolicy']>;
  apps: { name: string; namespace: string; sync_status: string; health: string }[];
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
    errors: status.errors ?? [],
    generated: status.observedGeneration !== undefined && status.observedGeneration === set.metadata.generation,
    created_at: set.metadata.creationTimestamp ?? new Date(0).toISOString(),
  };
}
