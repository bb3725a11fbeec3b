/**
 * The App use-cases of the API (contract §4.2): list, read, create, import, clone, preview, delete, freeze and unfreeze.
 * Apps are App resources in the org's namespace `org-<slug>`; nothing about them is stored in the database.
 */
import type { AppResource, AppSpec } from '../../core/app-schema.ts';
import { initialSync } from '../../core/app-state.ts';
import { type CreateRequest, parseCreateRequest } from '../../core/create-request.ts';
import { cycleMessage, findCycle, sameNamespaceDependencies } from '../../core/dependencies.ts';
import { InputError, UnprocessableError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { cloneAnnotations } from '../../engine/sources/image.ts';
import { checkOutboundURL, type OutboundPolicy } from '../../net/outbound.ts';
import { RegistryError } from '../../registry/index.ts';
import { checkCatalogSource } from '../catalog/app-source.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';
import {
  appScope,
  auditApp,
  checkRegistryRef,
  createAppResource,
  destinationScope,
  findApp,
  kubeOf,
  locateApp,
  refuseGenerated,
} from './access.ts';
import { type ListPage, type ListQuery, pageOf } from './list-query.ts';
import { type AppRef, scopeFilter, scopeOfApp } from './scope.ts';

/** What a preview resolves (contract §4.2 rule 13). */
export interface PreviewResult {
  valid: boolean;
  /** Why the image could not be resolved (with `valid: false`). */
  error?: string;
  error_class?: string;
  resolved: { image: string; tag: string; digest: string; ref: string };
  spec: AppSpec;
  current?: Omit<AppSpec, 'operation'>;
}

/**
 * A create payload the document accepts, as the App spec it asks for. The document states every per-field rule
 * (400 before this runs); what is left are rules between fields (src/core/create-request.ts): 422.
 */
async function parseCreate(body: unknown, policy: OutboundPolicy): Promise<CreateRequest> {
  let parsed: CreateRequest;
  try {
    parsed = parseCreateRequest(body);
    // A CEL health check that does not compile breaks a rule the document cannot state (422 naming the error). The
    // CEL library loads with the first App that has checks (about 25 MiB of the server's memory, issue 29).
    const checks = parsed.spec.health?.checks;
    if (checks?.length) (await import('../../engine/health/cel/compile.ts')).validateAppChecks(checks);
  } catch (err) {
    if (err instanceof InputError) throw new UnprocessableError(err.message, { cause: err });
    throw err;
  }
  checkNotificationURLs(parsed.spec, policy);
  return parsed;
}

/**
 * Refuses (422) notification URLs the outbound policy would refuse anyway (scheme, credentials in the URL, an
 * address literal outside SVC_OUTBOUND_SCOPE), so a mistake shows at create time rather than as failed deliveries.
 * Host names are checked again by the operator each time it connects.
 */
function checkNotificationURLs(spec: AppSpec, policy: OutboundPolicy): void {
  const n = spec.notifications;
  const urls = [n?.chat?.webhookURL, n?.slack?.webhookURL, n?.msTeams?.webhookURL, n?.webhook?.url];
  for (const url of urls) if (url !== undefined) checkOutboundURL(url, policy);
}

/** The destination a create payload names, as a scope (checked: registered cluster, allowlist). */
function payloadDestination(body: unknown, ctx: UseCaseContext) {
  const b = body as { cluster?: string; namespace: string };
  return destinationScope(ctx, b.cluster ?? '', b.namespace);
}

/**
 * The page of the org's Apps the caller may read that `query` asks for (filters, sort, cursor: see
 * list-query.ts), as app-object JSON, with the App cache's resourceVersion the page is as of.
 */
export const listApps = useCase({
  permission: 'deployment:read',
  where: 'anywhere',
  act: async (ctx, query: ListQuery): Promise<ListPage<Buffer> & { resourceVersion: string }> => {
    const kube = kubeOf(ctx.services);
    // Read before the entries: every change after it is newer, so a stream resumed from it misses none.
    const resourceVersion = kube.version ?? '';
    const entries = await kube.listEntries(orgNamespace(ctx.actor.org.slug));
    const readable = scopeFilter(ctx.actor, 'deployment:read');
    const page = pageOf(
      query,
      entries.filter((e) => readable(scopeOfApp(e.app))),
    );
    return { ...page, items: page.items.map((e) => e.json), resourceVersion };
  },
});

/** One App. */
export const getApp = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: locateApp,
  act: async (_ctx, _ref: AppRef, app) => app,
});

/**
 * 422 naming the cycle when the new App `parsed` would close a dependency cycle with the org's Apps (an App may
 * name one that does not exist yet, which may later name it back: that create is the one refused).
 */
async function checkNoCycle(ctx: UseCaseContext, parsed: CreateRequest): Promise<void> {
  const own = (parsed.spec.dependsOn ?? []).map((d) => d.name);
  if (own.length === 0) return;
  const apps = await kubeOf(ctx.services).list(orgNamespace(ctx.actor.org.slug));
  const edges = new Map(apps.map((a) => [a.metadata.name, sameNamespaceDependencies(a)]));
  edges.set(parsed.name, own);
  const cycle = findCycle(parsed.name, (name) => edges.get(name) ?? []);
  if (cycle) throw new UnprocessableError(`depends_on: ${cycleMessage(cycle)}`);
}

/** Creates an App from a create payload (409 on a taken name, 422 on a dependency cycle); audited `app.create`. */
export const createApp = useCase({
  permission: 'deployment:manage',
  where: { input: payloadDestination },
  act: async (ctx, body: unknown) => {
    const parsed = await parseCreate(body, ctx.services.config.outbound);
    await checkNoCycle(ctx, parsed);
    return createAppResource(ctx, parsed, { action: 'app.create', details: { source_type: parsed.spec.source.type } });
  },
});

/**
 * Creates an App of an import (POST /import with apply): as create, with the take-over annotations the import gives
 * (`cd.svc.space/import: pending` and its origin, src/core/import/take-over.ts) and a Sync operation, so the
 * operator's forced server-side apply takes the live objects over at once, never pruning. Audited `app.import`.
 */
export const importApp = useCase({
  permission: 'deployment:manage',
  where: {
    input: (input: { body: unknown; annotations: Record<string, string> }, ctx) => payloadDestination(input.body, ctx),
  },
  act: async (ctx, input) => {
    const parsed = await parseCreate(input.body, ctx.services.config.outbound);
    await checkNoCycle(ctx, parsed);
    const operation = initialSync(ctx.actor.caller.user.id);
    return createAppResource(
      ctx,
      { ...parsed, spec: { ...parsed.spec, operation } },
      { action: 'app.import', details: { source_type: parsed.spec.source.type, operation_id: operation.id } },
      input.annotations,
    );
  },
});

/**
 * Copies source, sync policy and destination (namespace unless `namespace`) of an App the caller may read onto a
 * new App `name`, which starts unsynced (`deployment:manage` at its destination); audited `app.clone`. A clone of a
 * Pinned image App carries the digest the original runs, which its first sync deploys (cloneAnnotations).
 */
export const cloneApp = useCase({
  permission: 'deployment:read',
  where: { target: appScope },
  locate: locateApp,
  act: async (ctx, input: AppRef & { as: { name: string; namespace?: string | undefined } }, from) => {
    const payload: Record<string, unknown> = {
      name: input.as.name,
      namespace: input.as.namespace ?? from.spec.destination.namespace,
      cluster: from.spec.destination.cluster ?? '',
      source: from.spec.source,
    };
    if (from.spec.syncPolicy) payload['sync_policy'] = from.spec.syncPolicy;
    if (from.spec.ignoreDifferences) payload['ignore_differences'] = from.spec.ignoreDifferences;
    const parsed = await parseCreate(payload, ctx.services.config.outbound);
    ctx.require('deployment:manage', await destinationScope(ctx, parsed.cluster, parsed.namespace));
    return createAppResource(
      ctx,
      parsed,
      { action: 'app.clone', details: { from: `${from.spec.destination.namespace}/${from.metadata.name}` } },
      cloneAnnotations(from),
    );
  },
});

/**
 * Validates a create payload exactly as create does and resolves its source without writing anything: for an
 * image source the digest its tag points at now (`valid: false` with the registry's error when it cannot be
 * resolved), for Git the branch ref. With `current`, the spec of that App is added for a client-side diff (422 when
 * it does not exist).
 */
export const previewApp = useCase({
  permission: 'deployment:manage',
  where: {
    input: (input: { body: unknown; current?: string | undefined }, ctx) => payloadDestination(input.body, ctx),
  },
  act: async (ctx, input): Promise<PreviewResult> => {
    const parsed = await parseCreate(input.body, ctx.services.config.outbound);
    await checkRegistryRef(ctx, parsed.spec);
    await checkCatalogSource(ctx, parsed.spec);
    const git = parsed.spec.source.git;
    const ref = git ? `refs/heads/${git.branch ?? 'main'}` : '';
    const answer: PreviewResult = { valid: true, resolved: { image: '', tag: '', digest: '', ref }, spec: parsed.spec };
    const image = parsed.spec.source.image;
    if (image) {
      const images = ctx.services.images;
      const location = await images.locate(ctx.actor.org.id, image);
      answer.resolved = { image: location.name, tag: image.tag, digest: '', ref: '' };
      try {
        const digest = await images.client.resolve(location.endpoint, location.path, image.tag);
        answer.resolved = { ...answer.resolved, digest, ref: `${location.name}@${digest}` };
      } catch (err) {
        if (!(err instanceof RegistryError)) throw err;
        Object.assign(answer, { valid: false, error: err.message, error_class: err.errorClass });
      }
    }
    if (input.current !== undefined) {
      const existing = await findApp(ctx, input.current);
      if (!existing) throw new UnprocessableError(`app "${input.current}" not found`);
      const { operation: _op, ...spec } = existing.spec;
      answer.current = spec;
    }
    return answer;
  },
});

/** Deletes an App; audited `app.delete`. What it applied is the operator's business. */
export const deleteApp = useCase({
  permission: 'deployment:manage',
  where: { target: appScope },
  locate: locateApp,
  act: async (ctx, _ref: AppRef, app): Promise<AppResource> => {
    refuseGenerated(app, 'deleted');
    await kubeOf(ctx.services).delete(orgNamespace(ctx.actor.org.slug), app.metadata.name);
    await auditApp(ctx, 'app.delete', app);
    return app;
  },
});

/** Sets or clears `spec.freeze`; audited `app.freeze` / `app.unfreeze`. */
export const freezeApp = useCase({
  permission: 'deployment:manage',
  where: { target: appScope },
  locate: (ctx, input: AppRef & { frozen: boolean }) => locateApp(ctx, input),
  act: async (ctx, input, app): Promise<AppResource> => {
    refuseGenerated(app, input.frozen ? 'frozen' : 'unfrozen');
    const kube = kubeOf(ctx.services);
    await kube.mergePatch(orgNamespace(ctx.actor.org.slug), app.metadata.name, { spec: { freeze: input.frozen } });
    await auditApp(ctx, input.frozen ? 'app.freeze' : 'app.unfreeze', app);
    return app;
  },
});

/**
 * Following the org's App changes: `deployment:read` somewhere; each App is then shown only where the caller may read
 * it (the filter). Run again every `reauthMs` so a revoked credential or a changed binding applies to a live stream.
 */
export const followApps = useCase({
  permission: 'deployment:read',
  where: 'anywhere',
  act: async (ctx, _input: undefined) => ({
    namespace: orgNamespace(ctx.actor.org.slug),
    orgId: ctx.actor.org.id,
    may: scopeFilter(ctx.actor, 'deployment:read'),
  }),
});
