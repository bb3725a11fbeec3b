/** Writing `spec.operation` (contract §2.4): one pending operation per App, a server-stamped UUID, the caller's id. */
import { randomUUID } from 'node:crypto';
import type { AppResource, OperationKind } from '../../core/app-schema.ts';
import { ConflictError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import type { KubeApps } from '../kube/apps-repo.ts';
import { isPending } from './view.ts';

export interface OperationRequest {
  kind: OperationKind;
  /** Target revision (Rollback, Approve, promote's Deploy). */
  revision?: string;
  /** Requesting identity: a user id. */
  triggeredBy: string;
  /** Further spec fields written in the same patch (e.g. a new image tag or replica count). */
  specPatch?: Record<string, unknown>;
}

/**
 * Writes a new operation onto the App and returns its id. ConflictError when another operation is pending, or when
 * the App changed since it was read (the patch carries the read resourceVersion, so two callers racing on one App
 * cannot both win).
 */
export async function requestOperation(
  kube: KubeApps,
  orgSlug: string,
  app: AppResource,
  request: OperationRequest,
): Promise<string> {
  if (isPending(app)) {
    throw new ConflictError(
      `app ${app.metadata.name} already has a pending ${app.spec.operation?.kind ?? ''} operation (${app.spec.operation?.id ?? ''})`,
    );
  }
  const id = randomUUID();
  // Merge patch: fields not named stay, so a stale revision is removed explicitly with null.
  const operation = {
    kind: request.kind,
    initiatedAt: new Date().toISOString(),
    id,
    triggeredBy: request.triggeredBy,
    revision: request.revision ?? null,
  };
  await kube.mergePatch(
    orgNamespace(orgSlug),
    app.metadata.name,
    { spec: { ...request.specPatch, operation } },
    app.metadata.resourceVersion,
  );
  return id;
}
