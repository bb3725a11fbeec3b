/**
 * Adoption (contract §4.2 rule 14): list the unmanaged Deployments and StatefulSets of a namespace, and take one
 * over as an image-source App whose rendering is the workload's own template (./adopt-image.ts). The App is created
 * with a Sync operation, so the operator applies at once and its forced server-side apply takes the fields over;
 * nothing restarts when the workload already runs its image by digest.
 */
import { MANAGED_LABEL } from '../../core/app-schema.ts';
import { newStamp } from '../../core/app-state.ts';
import { parseCreateRequest } from '../../core/create-request.ts';
import { ConflictError, InputError, NotFoundError } from '../../core/errors.ts';
import { isDnsLabel } from '../../core/names.ts';
import type { Actor } from '../actor.ts';
import { listWorkloads, type Workload } from '../kube/apps-repo.ts';
import type { ApiServices } from '../services.ts';
import { AppAccess } from './access.ts';
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

/** What adopt is asked to take over. */
export interface AdoptRequest {
  cluster?: string;
  namespace: string;
  name: string;
  kind: 'Deployment' | 'StatefulSet';
}

/** Adoptable workloads and adoption. */
export class AdoptService {
  readonly #access: AppAccess;
  readonly #services: ApiServices;

  constructor(services: ApiServices) {
    this.#services = services;
    this.#access = new AppAccess(services);
    this.#services = services;
  }

  /** Workloads of the namespace on the org's cluster (management or registered) not managed by svc. */
  async #unmanaged(orgId: string, cluster: string, namespace: string): Promise<Workload[]> {
    const all =
      cluster === ''
        ? await this.#access.kube().workloads(namespace)
        : await listWorkloads((await this.#services.clusters.connectionOf(orgId, cluster)).client, namespace);
    return all.filter((w) => !(MANAGED_LABEL in w.labels));
  }

  /** Unmanaged workloads of a namespace (`deployment:read` there) and whether each could be adopted. */
  async adoptable(actor: Actor, cluster: string, namespace: string): Promise<AdoptableWorkload[]> {
    this.#access.kube();
    if (!isDnsLabel(namespace)) throw new InputError('namespace must be a DNS-1123 label');
    await this.#access.authorizeDestination(actor, 'deployment:read', cluster, namespace);
    return (await this.#unmanaged(actor.org.id, cluster, namespace)).map((w) => {
      const problem = adoptionProblem(w);
      return {
        kind: w.kind,
        name: w.name,
        namespace,
        cluster,
        replicas: w.replicas,
        images: w.containers.map((c) => c.image),
        adoptable: problem === undefined,
        reason: problem ?? '',
      };
    });
  }

  /**
   * Takes an unmanaged workload over as an image-source App (`deployment:manage` on the destination) created with
   * a Sync operation: 404 when no such unmanaged workload exists, 409 when it cannot be adopted (see
   * adoptionProblem) or an App of that name exists, then the create rules. Audited `app.adopt`.
   */
  async adopt(actor: Actor, request: AdoptRequest) {
    this.#access.kube();
    const { namespace, name, kind } = request;
    const cluster = request.cluster ?? '';
    if (!isDnsLabel(namespace) || !isDnsLabel(name)) throw new InputError('namespace and name must be DNS-1123 labels');
    await this.#access.authorizeDestination(actor, 'deployment:manage', cluster, namespace);
    const workload = (await this.#unmanaged(actor.org.id, cluster, namespace)).find(
      (w) => w.kind === kind && w.name === name,
    );
    if (!workload) throw new NotFoundError(`unmanaged ${kind} ${namespace}/${name} not found`);
    const problem = adoptionProblem(workload);
    if (problem) throw new ConflictError(`${kind} ${name} cannot be adopted: ${problem}`);
    const registries = await this.#services.registries.list(actor.org.id);
    const image = adoptedImageSource(workload, registries);
    const parsed = parseCreateRequest({ name, namespace, cluster, source: { type: 'Image', image } });
    const stamp = newStamp();
    const operation = {
      kind: 'Sync' as const,
      initiatedAt: stamp.now.toISOString(),
      id: stamp.id,
      triggeredBy: actor.caller.user.id,
    };
    return this.#access.create(
      actor,
      { ...parsed, spec: { ...parsed.spec, operation } },
      'app.adopt',
      { kind, image: workload.containers[0]?.image ?? '', operation_id: stamp.id },
      { 'cd.svc.space/adopted': kind },
    );
  }
}
