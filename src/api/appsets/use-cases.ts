/**
 * The AppSet use-cases (issue 27 item 1; docs/api.md "AppSets"): list and read (`deployment:read` in the org),
 * create, replace and delete (`deployment:manage` in the org: an AppSet makes Apps in any destination its generators
 * reach, which is not known when it is written). AppSets are resources in the org namespace, audited once the
 * cluster took the write (`appset.create/update/delete`). The rules a schema cannot state (one kind per generator,
 * placeholders some generator provides) are 422 naming the field (src/core/appset-rules.ts).
 */

import { appSetProblems } from '../../core/appset-rules.ts';
import type { AppSetResource, AppSetSpec } from '../../core/appset-schema.ts';
import { NotFoundError, UnavailableError, UnprocessableError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import type { KubeAppSets } from '../kube/appsets-repo.ts';
import type { ApiServices } from '../services.ts';
import { type UseCaseContext, useCase } from '../use-case.ts';

/** The generators, template and sync policy of a create or update body. */
export interface AppSetBody {
  generators: AppSetSpec['generators'];
  template: AppSetSpec['template'];
  sync_policy?: AppSetSpec['syncPolicy'] | undefined;
  strategy?: AppSetSpec['strategy'] | undefined;
}

/** The management cluster's AppSet client; 503 without one. */
function setsOf(services: ApiServices): KubeAppSets {
  const sets = services.appSets;
  if (!sets) throw new UnavailableError('no management cluster configured (SVC_MGMT_KUBECONFIG is unset)');
  return sets;
}

const namespaceOf = (ctx: UseCaseContext) => orgNamespace(ctx.actor.org.slug);

/** The org's AppSet `name`; 404 otherwise. */
async function locateAppSet(ctx: UseCaseContext, name: string): Promise<AppSetResource> {
  const set = await setsOf(ctx.services).get(namespaceOf(ctx), name);
  if (!set) throw new NotFoundError(`appset ${name} not found`);
  return set;
}

/** The resource spec of a body, once the write-time rules hold (422 naming each problem otherwise). */
function specOf(body: AppSetBody): AppSetSpec {
  const spec: AppSetSpec = {
    generators: body.generators,
    template: body.template,
    ...(body.sync_policy ? { syncPolicy: body.sync_policy } : {}),
    ...(body.strategy ? { strategy: body.strategy } : {}),
  };
  const problems = appSetProblems(spec);
  if (problems.length > 0) throw new UnprocessableError(problems.join('; '));
  return spec;
}

function audit(ctx: UseCaseContext, action: string, set: AppSetResource, details: Record<string, unknown> = {}) {
  return ctx.audit({
    action,
    resourceType: 'appset',
    ...(set.metadata.uid ? { resourceId: set.metadata.uid } : {}),
    resourceName: set.metadata.name,
    details,
  });
}

/** How a spec's generators read, for the audit entry. */
const generatorKinds = (spec: AppSetSpec) => spec.generators.map((g) => Object.keys(g)[0] ?? '');

/** The org's AppSets. */
export const listAppSets = useCase({
  permission: 'deployment:read',
  where: 'org',
  act: (ctx, _input: undefined) => setsOf(ctx.services).list(namespaceOf(ctx)),
});

/** One AppSet. */
export const getAppSet = useCase({
  permission: 'deployment:read',
  where: 'org',
  locate: locateAppSet,
  act: async (_ctx, _name: string, set) => set,
});

/** Creates an AppSet (409 on a taken name); audited `appset.create`. */
export const createAppSet = useCase({
  permission: 'deployment:manage',
  where: 'org',
  act: async (ctx, body: AppSetBody & { name: string }) => {
    const spec = specOf(body);
    const namespace = namespaceOf(ctx);
    await ctx.services.kube?.ensureNamespace(namespace);
    const created = await setsOf(ctx.services).create(namespace, body.name, spec);
    await audit(ctx, 'appset.create', created, { generators: generatorKinds(spec) });
    return created;
  },
});

/** Replaces an AppSet's generators, template and sync policy; audited `appset.update`. */
export const updateAppSet = useCase({
  permission: 'deployment:manage',
  where: 'org',
  locate: (ctx, input: { name: string; body: AppSetBody }) => locateAppSet(ctx, input.name),
  act: async (ctx, input, current) => {
    const spec = specOf(input.body);
    const updated = await setsOf(ctx.services).replaceSpec(current, spec);
    await audit(ctx, 'appset.update', updated, { generators: generatorKinds(spec) });
    return updated;
  },
});

/** Deletes an AppSet (its Apps go with it); audited `appset.delete`. */
export const deleteAppSet = useCase({
  permission: 'deployment:manage',
  where: 'org',
  locate: locateAppSet,
  act: async (ctx, _name: string, set) => {
    await setsOf(ctx.services).delete(namespaceOf(ctx), set.metadata.name);
    await audit(ctx, 'appset.delete', set, { apps: (set.status?.apps ?? []).map((a) => a.name) });
    return set;
  },
});
