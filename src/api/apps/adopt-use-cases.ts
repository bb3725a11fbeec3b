/**
 * Adoption (contract §4.2 rule 14): list the unmanaged Deployments and StatefulSets of a namespace, and take one
 * over as an image-source App whose rendering is the workload's own template (./adopt-image.ts). The App is created
 * with a Sync operation, so the operator applies at once and its forced server-side apply takes the fields over;
 * nothing restarts when the workload already runs its image by digest.
 */
import { MANAGED_LABEL } from '../../core/app-schema.ts';
import { initialSync } from '../../core/app-state.ts';
import { parseCreateRequest } from '../../core/create-request.ts';
import { ConflictError, NotFoundError } from '../../core/errors.ts';
import { listWorkloads, type Workload } from '../kube/apps-repo.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';
import { createAppResource, destinationScope, kubeOf } from './access.ts';
import { adoptedImageSource, adoptionProblem } from './adopt-image.ts';

/** A workload as the adoptable list shows it. */
export interface AdoptableWorkload {
  kind: string;
  name: string;
  namespace: string;
  cluster: string;
  replicas: number;
  images: string[];
  adoptable: boolean;
  reason: string;
}

/** Where to look: a namespace of the management cluster (cluster '') or of a registered cluster. */
export interface Place {
  cluster?: string | undefined;
  namespace: string;
}

/** What adopt is asked to take over. */
export interface AdoptRequest extends Place {
  name: string;
  kind: 'Deployment' | 'StatefulSet';
}

const placeScope = (place: Place, ctx: UseCaseContext) => destinationScope(ctx, place.cluster ?? '', place.namespace);

/** Workloads of the namespace on the org's cluster (management or registered) not managed by svc. */
async function unmanaged(ctx: UseCaseContext, cluster: string, namespace: string): Promise<Workload[]> {
  const all =
    cluster === ''
      ? await kubeOf(ctx.services).workloads(namespace)
      : await listWorkloads((await ctx.services.clusters.connectionOf(ctx.actor.org.id, cluster)).client, namespace);
  return all.filter((w) => !(MANAGED_LABEL in w.labels));
}

/** Unmanaged workloads of a namespace (`deployment:read` there) and whether each could be adopted. */
export const adoptable = useCase({
  permission: 'deployment:read',
  where: { input: placeScope },
  act: async (ctx, place: Place): Promise<AdoptableWorkload[]> => {
    const cluster = place.cluster ?? '';
    return (await unmanaged(ctx, cluster, place.namespace)).map((w) => {
      const problem = adoptionProblem(w);
      return {
        kind: w.kind,
        name: w.name,
        namespace: place.namespace,
        cluster,
        replicas: w.replicas,
        images: w.containers.map((c) => c.image),
        adoptable: problem === undefined,
        reason: problem ?? '',
      };
    });
  },
});

/**
 * Takes an unmanaged workload over as an image-source App (`deployment:manage` on the destination) created with
 * a Sync operation: 404 when no such unmanaged workload exists, 409 when it cannot be adopted (see
 * adoptionProblem) or an App of that name exists. Audited `app.adopt`.
 */
export const adoptWorkload = useCase({
  permission: 'deployment:manage',
  where: { input: placeScope },
  act: async (ctx, request: AdoptRequest) => {
    const { namespace, name, kind } = request;
    const cluster = request.cluster ?? '';
    const workload = (await unmanaged(ctx, cluster, namespace)).find((w) => w.kind === kind && w.name === name);
    if (!workload) throw new NotFoundError(`unmanaged ${kind} ${namespace}/${name} not found`);
    const problem = adoptionProblem(workload);
    if (problem) throw new ConflictError(`${kind} ${name} cannot be adopted: ${problem}`);
    const registries = await ctx.services.registries.list(ctx.actor.org.id);
    const image = adoptedImageSource(workload, registries);
    const parsed = parseCreateRequest({ name, namespace, cluster, source: { type: 'Image', image } });
    const operation = initialSync(ctx.actor.caller.user.id);
    return createAppResource(
      ctx,
      { ...parsed, spec: { ...parsed.spec, operation } },
      {
        action: 'app.adopt',
        details: { kind, image: workload.containers[0]?.image ?? '', operation_id: operation.id },
      },
      { 'cd.svc.space/adopted': kind },
    );
  },
});
