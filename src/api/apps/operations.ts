/** Writing `spec.operation` (contract §2.4): one pending operation per App, a server-stamped UUID, the caller's id. */
import { randomUUID } from 'node:crypto';
import type { AppResource, OperationKind } from '../../core/app-schema.ts';
import { ConflictError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { type KubeApps, StaleVersionError } from '../kube/apps-repo.ts';
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

/** How often a write that lost a resourceVersion race to an unrelated change is re-read and retried. */
const MAX_ATTEMPTS = 4;

/**
 * Whether `fresh` differs from `read` only where the operator writes on its own (finalizers, health, resources):
 * same spec generation and same operation state, so every check the caller made on `read` still holds.
 */
function sameForOperations(read: AppResource, fresh: AppResource): boolean {
  return (
    read.metadata.generation === fresh.metadata.generation &&
    JSON.stringify(read.status?.operationState ?? null) === JSON.stringify(fresh.status?.operationState ?? null)
  );
}

function pendingConflict(app: AppResource): ConflictError {
  return new ConflictError(
    `app ${app.metadata.name} already has a pending ${app.spec.operation?.kind ?? ''} operation (${app.spec.operation?.id ?? ''})`,
  );
}

/**
 * Writes a new operation onto the App and returns its id. ConflictError when another operation is pending. The
 * patch carries the resourceVersion it checked, so two callers racing on one App cannot both win; when the App
 * changed only where the operator writes on its own (status health, finalizers), it is re-read and the write
 * retried, so a busy operator does not turn a valid request into a 409.
 */
export async function requestOperation(
  kube: KubeApps,
  orgSlug: string,
  app: AppResource,
  request: OperationRequest,
): Promise<string> {
  let current = app;
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeOperation(kube, orgSlug, current, request);
    } catch (err) {
      if (!(err instanceof StaleVersionError) || attempt >= MAX_ATTEMPTS) throw err;
      const fresh = await kube.get(orgNamespace(orgSlug), app.metadata.name);
      if (!fresh || isPending(fresh) || !sameForOperations(app, fresh)) {
        throw fresh && isPending(fresh) ? pendingConflict(fresh) : err;
      }
      current = fresh;
    }
  }
}

async function writeOperation(
  kube: KubeApps,
  orgSlug: string,
  app: AppResource,
  request: OperationRequest,
): Promise<string> {
  if (isPending(app)) throw pendingConflict(app);
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
