/**
 * Object-level operations on any kind: server-side apply, read, delete, merge patch, list by label across
 * namespaces. Paths come from discovery so custom resources work like built-in ones.
 */

import type { AnyObject, ObjectRef } from '../core/kube-object.ts';
import type { KubeClient } from './client.ts';
import { apiPrefix, type Discovery } from './discovery.ts';
import { isNotFound } from './errors.ts';

/** The field manager of every write the operator makes. */
export const FIELD_MANAGER = 'svc-operator';

export { type AnyObject, type ObjectRef, objectRef } from '../core/kube-object.ts';

/** Typed access to objects of any kind on one API server. */
export class ObjectClient {
  readonly client: KubeClient;
  readonly discovery: Discovery;

  constructor(client: KubeClient, discovery: Discovery) {
    this.client = client;
    this.discovery = discovery;
  }

  /** The API path of one object (or of its collection when `name` is omitted). */
  async path(ref: Omit<ObjectRef, 'name'> & { name?: string }, subresource?: string): Promise<string> {
    const info = await this.discovery.require(ref.apiVersion, ref.kind);
    let p = apiPrefix(ref.apiVersion);
    if (info.namespaced && ref.namespace) p += `/namespaces/${encodeURIComponent(ref.namespace)}`;
    p += `/${info.plural}`;
    if (ref.name) p += `/${encodeURIComponent(ref.name)}`;
    if (subresource) p += `/${subresource}`;
    return p;
  }

  /** Server-side apply of `obj` with field manager svc-operator, forced. Returns the live object. */
  async apply(obj: AnyObject): Promise<AnyObject> {
    const path = await this.path({ ...obj, name: obj.metadata.name, namespace: obj.metadata.namespace });
    return this.client.request<AnyObject>(path, {
      method: 'PATCH',
      query: { fieldManager: FIELD_MANAGER, force: true },
      body: obj,
      contentType: 'application/apply-patch+yaml',
    });
  }

  /** Creates `obj` (POST to its collection, field manager svc-operator); answers the created object, 409 when it exists. */
  async create(obj: AnyObject): Promise<AnyObject> {
    const path = await this.path({ apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace });
    return this.client.request<AnyObject>(path, { method: 'POST', query: { fieldManager: FIELD_MANAGER }, body: obj });
  }

  /**
   * What `apply(obj)` would make of the object, without writing anything (`dryRun=All`: admission, defaulting and
   * field ownership run as for a real apply). The apiserver answers 404 when the namespace does not exist yet.
   */
  async dryRunApply(obj: AnyObject): Promise<AnyObject> {
    const path = await this.path({ ...obj, name: obj.metadata.name, namespace: obj.metadata.namespace });
    return this.client.request<AnyObject>(path, {
      method: 'PATCH',
      query: { fieldManager: FIELD_MANAGER, force: true, dryRun: 'All' },
      body: obj,
      contentType: 'application/apply-patch+yaml',
    });
  }

  /** JSON merge patch (RFC 7386) of an object or one of its subresources. */
  async mergePatch(ref: ObjectRef, patch: unknown, subresource?: string): Promise<AnyObject> {
    return this.client.request<AnyObject>(await this.path(ref, subresource), {
      method: 'PATCH',
      query: { fieldManager: FIELD_MANAGER },
      body: patch,
      contentType: 'application/merge-patch+json',
    });
  }

  /** The live object, or undefined when it does not exist. */
  async get(ref: ObjectRef): Promise<AnyObject | undefined> {
    try {
      return await this.client.request<AnyObject>(await this.path(ref));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * Deletes an object in the background; true when something was deleted, false when it was already gone. With
   * `preconditions`, the server deletes only while the object still has that uid and resourceVersion, and answers
   * 409 (KubeApiError, see isConflict) when it changed since it was read.
   */
  async delete(ref: ObjectRef, preconditions?: { uid?: string; resourceVersion?: string }): Promise<boolean> {
    try {
      await this.client.request(await this.path(ref), {
        method: 'DELETE',
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          propagationPolicy: 'Background',
          ...(preconditions ? { preconditions } : {}),
        },
      });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /**
   * Objects of one kind matching `labelSelector`, in every namespace (or the given one). An apiVersion/kind the
   * server does not serve yields an empty list.
   */
  async list(apiVersion: string, kind: string, labelSelector: string, namespace?: string): Promise<AnyObject[]> {
    const info = await this.discovery.lookup(apiVersion, kind);
    if (!info?.verbs.includes('list')) return [];
    const path = await this.path({ apiVersion, kind, ...(namespace ? { namespace } : {}) });
    const out: AnyObject[] = [];
    let cont: string | undefined;
    do {
      const page = await this.client.request<{ items: AnyObject[]; metadata?: { continue?: string } }>(path, {
        query: { labelSelector, limit: 500, continue: cont },
      });
      for (const item of page.items ?? []) out.push({ ...item, apiVersion, kind });
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return out;
  }
}
