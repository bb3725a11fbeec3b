/**
 * Adoption (contract §4.2 rule 14): list the unmanaged Deployments and StatefulSets of a namespace, and take one
 * over as an image-source App. Adoption needs the workload's selector to match the labels the image renderer puts
 * on its pods already (a Deployment's selector is immutable, so svc could not apply over it otherwise): else 409.
 * Image sources have no driver yet, so a matching workload is refused with 400 by the create rules
 * (`image sources are not supported yet`) until they do; the selector rules stand ready for them.
 */
import { MANAGED_LABEL } from '../../core/app-schema.ts';
import { parseCreateRequest } from '../../core/create-request.ts';
import { ConflictError, InputError, NotFoundError } from '../../core/errors.ts';
import { isDnsLabel } from '../../core/names.ts';
import { listWorkloads, type Workload } from '../kube/apps-repo.ts';
import type { ApiServices } from '../services.ts';
import { type Actor, AppAccess } from './access.ts';

/** The pod labels the image renderer sets for an App named `name`; an adoptable selector is exactly these. */
export function renderedLabels(name: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/managed-by': 'svc',
  };
}

/** Whether the workload's selector uses exactly the rendered label keys with the rendered values. */
export function selectorMatches(w: Workload): boolean {
  const want = renderedLabels(w.name);
  const keys = Object.keys(w.selector);
  return (
    keys.length > 0 && keys.every((k) => want[k] === w.selector[k]) && Object.keys(want).every((k) => k in w.selector)
  );
}

/** Splits an image reference into repository and tag (digest references keep the digest as the tag). */
export function splitImage(image: string): { repository: string; tag: string } {
  const at = image.indexOf('@');
  if (at >= 0) return { repository: image.slice(0, at), tag: image.slice(at + 1) };
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash
    ? { repository: image.slice(0, colon), tag: image.slice(colon + 1) }
    : { repository: image, tag: 'latest' };
}

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
      const adoptable = selectorMatches(w);
      return {
        kind: w.kind,
        name: w.name,
        namespace,
        cluster,
        replicas: w.replicas,
        images: w.containers.map((c) => c.image),
        adoptable,
        reason: adoptable ? '' : 'selector does not match the rendered labels',
      };
    });
  }

  /**
   * Takes an unmanaged workload over as an image-source App (`deployment:manage` on the destination): 404 when no
   * such unmanaged workload exists, 409 when its selector does not match the rendered labels, then the create
   * rules (today 400: image sources are not supported yet). Audited `app.adopt`.
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
    if (!selectorMatches(workload)) {
      throw new ConflictError(
        `${kind} ${name} selector must match the rendered labels ${JSON.stringify(renderedLabels(name))}`,
      );
    }
    const container = workload.containers[0];
    if (!container) throw new ConflictError(`${kind} ${name} has no container`);
    const { repository, tag } = splitImage(container.image);
    const parsed = parseCreateRequest({
      name,
      namespace,
      cluster,
      source: {
        type: 'Image',
        image: {
          repository,
          tag,
          workload: { replicas: workload.replicas, ...(container.port ? { port: container.port } : {}) },
        },
      },
    });
    return this.#access.create(actor, parsed, 'app.adopt', { kind }, { 'cd.svc.space/adopted': kind });
  }
}
