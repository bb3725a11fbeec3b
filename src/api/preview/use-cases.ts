/**
 * `POST /preview` (issue 30 item 1): what a ref of a repository would change, for every App of the org the caller
 * may read whose Git source is that repository (AppSet-generated Apps included, as they are Apps of the org) and
 * every App an AppSet reading that repository would generate, change or delete at the ref (./appsets.ts), each
 * through the diff of that ref (apps/diff-service.ts: rendered, dry-run applied, compared with live; nothing
 * written), plus a Markdown summary for a pull-request comment. One App that cannot be previewed is a `failed`
 * entry; a ref that every App and AppSet failed on for not existing is the request's 422.
 */
import type { AppResource } from '../../core/app-schema.ts';
import { mapLimit } from '../../core/concurrency.ts';
import { describeError, UnprocessableError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { repositoryKey } from '../../engine/appset-inputs.ts';
import { ClusterStore } from '../../store/clusters.ts';
import type { Actor } from '../actor.ts';
import { kubeOf } from '../apps/access.ts';
import type { AppDiff } from '../apps/diff-service.ts';
import { liveReadsOf } from '../apps/live-reads.ts';
import { scopeFilter, scopeOfApp } from '../apps/scope.ts';
import type { ApiServices } from '../services.ts';
import { useCase } from '../use-case.ts';
import {
  type AppSetPreview,
  type AppSetsPreview,
  appSetOf,
  builtFrom,
  type PreviewCandidate,
  previewAppSets,
} from './appsets.ts';
import { previewMarkdown } from './markdown.ts';

/** The request. */
export interface PreviewBody {
  repoURL: string;
  revision: string;
}

/** One previewed App. */
export interface PreviewedApp {
  name: string;
  namespace: string;
  appset: string | null;
  lifecycle: PreviewCandidate['lifecycle'];
  status: 'changed' | 'unchanged' | 'failed';
  error?: string;
  diff?: AppDiff;
}

/** The answer. */
export interface PreviewReport {
  repoURL: string;
  revision: string;
  apps: PreviewedApp[];
  appsets: AppSetPreview[];
  summary: { apps: number; changed: number; unchanged: number; failed: number; added: number; removed: number };
  markdown: string;
}

/** Apps previewed at once (each renders and dry-runs its objects). */
const CONCURRENCY = 2;

function changes(d: AppDiff): boolean {
  return d.summary.changed + d.summary.missing + d.summary.extra > 0;
}

/** The AppSets of the org generated at the ref; none without a management cluster's AppSets. */
async function appSetsAt(
  services: ApiServices,
  actor: Actor,
  existing: readonly AppResource[],
  body: PreviewBody,
): Promise<AppSetsPreview> {
  const namespace = orgNamespace(actor.org.slug);
  const appSets = (await services.appSets?.list(namespace)) ?? [];
  const trees = (await liveReadsOf(services).desired()).trees;
  const clusters = async () =>
    (await new ClusterStore(services.store.db).list(actor.org.id)).map((c) => ({ name: c.name, labels: c.labels }));
  const at = { repository: repositoryKey(body.repoURL), revision: body.revision };
  return previewAppSets(appSets, existing, at, { reader: trees, clusters });
}

/** The Apps to preview: the AppSets' (added, changed, removed) and every other App built from the repository. */
function candidatesOf(
  apps: readonly AppResource[],
  fromSets: readonly PreviewCandidate[],
  url: string,
  revision: string,
) {
  const taken = new Set(fromSets.map((c) => c.app.metadata.name));
  const plain = apps
    .filter((a) => !taken.has(a.metadata.name) && builtFrom(a, url))
    .map((app): PreviewCandidate => ({ app, appset: appSetOf(app), lifecycle: 'existing', ref: revision }));
  return [...fromSets, ...plain].sort((a, b) => a.app.metadata.name.localeCompare(b.app.metadata.name));
}

/** The preview of one App: its diff at the ref, or what its deletion would remove. */
async function previewApp(services: ApiServices, orgId: string, c: PreviewCandidate): Promise<PreviewedApp> {
  const base = {
    name: c.app.metadata.name,
    namespace: c.app.spec.destination.namespace,
    appset: c.appset,
    lifecycle: c.lifecycle,
  };
  const diffs = liveReadsOf(services).diffs;
  const diff =
    c.lifecycle === 'removed'
      ? await diffs.removal(orgId, c.app, c.keepObjects === true)
      : await diffs.diff(orgId, c.app, c.ref);
  return { ...base, status: changes(diff) ? 'changed' : 'unchanged', diff };
}

/** The preview of `revision` of `repoURL` over the org's readable Apps built from it. Needs deployment:read. */
export const previewRepository = useCase({
  permission: 'deployment:read',
  where: 'anywhere',
  act: async (ctx, body: PreviewBody): Promise<PreviewReport> => {
    const url = repositoryKey(body.repoURL);
    const readable = scopeFilter(ctx.actor, 'deployment:read');
    const entries = await kubeOf(ctx.services).listEntries(orgNamespace(ctx.actor.org.slug));
    const all = entries.map((e) => e.app);
    const sets = await appSetsAt(ctx.services, ctx.actor, all, body);
    const candidates = candidatesOf(all, sets.candidates, url, body.revision).filter((c) =>
      readable(scopeOfApp(c.app)),
    );
    const refused: UnprocessableError[] = [...sets.refused];
    const previewed = await mapLimit(candidates, CONCURRENCY, async (c): Promise<PreviewedApp> => {
      try {
        return await previewApp(ctx.services, ctx.actor.org.id, c);
      } catch (err) {
        if (err instanceof UnprocessableError) refused.push(err);
        const { name, namespace } = { name: c.app.metadata.name, namespace: c.app.spec.destination.namespace };
        return {
          name,
          namespace,
          appset: c.appset,
          lifecycle: c.lifecycle,
          status: 'failed',
          error: describeError(err),
        };
      }
    });
    // The ref is the request's: when no App nor AppSet could find it, the request is wrong rather than each App.
    const first = refused[0];
    if (first && refused.length === previewed.length + sets.appsets.length) throw first;
    const summary = { apps: previewed.length, changed: 0, unchanged: 0, failed: 0, added: 0, removed: 0 };
    for (const p of previewed) {
      summary[p.status]++;
      if (p.lifecycle !== 'existing') summary[p.lifecycle]++;
    }
    return {
      repoURL: body.repoURL,
      revision: body.revision,
      apps: previewed,
      appsets: sets.appsets,
      summary,
      markdown: previewMarkdown(body.repoURL, body.revision, previewed, sets.appsets),
    };
  },
});
