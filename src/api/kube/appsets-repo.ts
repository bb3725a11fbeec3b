/**
 * AppSet resources on the management cluster, in the org namespaces `org-<slug>` (issue 27 item 1): list, read,
 * create, replace the spec (at the version read), delete. Few per org and read rarely: no cache, every call asks
 * the apiserver. Failures become svc's typed errors (src/kube `toSvcError`).
 */
import { APP_API_VERSION, APP_GROUP, APP_VERSION, APPSET_KIND, APPSET_PLURAL } from '../../core/app-names.ts';
import type { AppSetResource, AppSetSpec } from '../../core/appset-schema.ts';
import { ConflictError } from '../../core/errors.ts';
import { isConflict, isNotFound, type KubeClient, toSvcError } from '../../kube/index.ts';

const setsPath = (namespace: string) =>
  `/apis/${APP_GROUP}/${APP_VERSION}/namespaces/${encodeURIComponent(namespace)}/${APPSET_PLURAL}`;
const setPath = (namespace: string, name: string) => `${setsPath(namespace)}/${encodeURIComponent(name)}`;

/** The AppSets of the management cluster. */
export class KubeAppSets {
  readonly #client: KubeClient;

  constructor(client: KubeClient) {
    this.#client = client;
  }

  /** The AppSets of `namespace`, by name. */
  async list(namespace: string): Promise<AppSetResource[]> {
    try {
      const { items } = await this.#client.request<{ items: AppSetResource[] }>(setsPath(namespace));
      return items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    } catch (err) {
      throw toSvcError(err, 'list appsets');
    }
  }

  /** The AppSet, or undefined. */
  async get(namespace: string, name: string): Promise<AppSetResource | undefined> {
    try {
      return await this.#client.request<AppSetResource>(setPath(namespace, name));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw toSvcError(err, `appset ${name}`);
    }
  }

  /** Creates the AppSet; ConflictError when the name is taken. */
  async create(namespace: string, name: string, spec: AppSetSpec): Promise<AppSetResource> {
    const body = { apiVersion: APP_API_VERSION, kind: APPSET_KIND, metadata: { name, namespace }, spec };
    try {
      return await this.#client.request<AppSetResource>(setsPath(namespace), { method: 'POST', body });
    } catch (err) {
      if (isConflict(err)) throw new ConflictError(`appset ${name} already exists`, { cause: err });
      throw toSvcError(err, `create appset ${name}`);
    }
  }

  /** Replaces the spec of `current` (ConflictError when it changed since it was read). */
  async replaceSpec(current: AppSetResource, spec: AppSetSpec): Promise<AppSetResource> {
    const { status: _status, ...rest } = current;
    const namespace = current.metadata.namespace ?? '';
    try {
      return await this.#client.request<AppSetResource>(setPath(namespace, current.metadata.name), {
        method: 'PUT',
        body: { ...rest, spec },
      });
    } catch (err) {
      if (isConflict(err)) throw new ConflictError(`appset ${current.metadata.name} changed concurrently; retry`);
      throw toSvcError(err, `appset ${current.metadata.name}`);
    }
  }

  /** Deletes the AppSet (its Apps follow through their owner references). */
  async delete(namespace: string, name: string): Promise<void> {
    try {
      await this.#client.request(setPath(namespace, name), {
        method: 'DELETE',
        body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' },
      });
    } catch (err) {
      throw toSvcError(err, `appset ${name}`);
    }
  }
}
