/**
 * `POST /preview` (issue 30 item 1): what a ref of a repository would change, for every App of the org the caller
 * may read whose Git source is that repository — AppSet-generated Apps included, as they are Apps of the org — each
 * through the diff of that ref (apps/diff-service.ts: rendered, dry-run applied, compared with live; nothing
 * written), plus a Markdown summary for a pull-request comment. One App that cannot be previewed is a `failed`
 * entry; a ref that every App failed on for not existing is the request's 422.
 */
import { APPSET_LABEL } from '../../core/app-names.ts';
import type { AppResource } from '../../core/app-schema.ts';
import { mapLimit } from '../../core/concurrency.ts';
import { describeError, UnprocessableError } from '../../core/errors.ts';
import { orgNamespace } from '../../core/names.ts';
import { normalizeRepositoryURL } from '../../core/repository.ts';
import { kubeOf } from '../apps/access.ts';
import type { AppDiff } from '../apps/diff-service.ts';
import { liveReadsOf } from '../apps/live-reads.ts';
import { scopeFilter, scopeOfApp } from '../apps/scope.ts';
import { useCase } from '../use-case.ts';
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
  status: 'changed' | 'unchanged' | 'failed';
  error?: string;
  diff?: AppDiff;
}

/** The answer. */
export interface PreviewReport {
  repoURL: string;
  revision: string;
  apps: PreviewedApp[];
  summary: { apps: number; changed: number; unchanged: number; failed: number };
  markdown: string;
}

/** Apps previewed at once (each renders and dry-runs its objects). */
const CONCURRENCY = 2;

function changes(d: AppDiff): boolean {
  return d.summary.changed + d.summary.missing + d.summary.extra > 0;
}

/** Whether `app` is built from the repository `url` (normalized as repository matching compares URLs). */
function builtFrom(app: AppResource, url: string): boolean {
  const repo = app.spec.source.type === 'Git' ? app.spec.source.git?.repoURL : undefined;
  return repo !== undefined && normalizeRepositoryURL(repo).replace(/\.git$/, '') === url;
}

/** The preview of `revision` of `repoURL` over the org's readable Apps built from it. Needs deployment:read. */
export const previewRepository = useCase({
  permission: 'deployment:read',
  where: 'anywhere',
  act: async (ctx, body: PreviewBody): Promise<PreviewReport> => {
    const url = normalizeRepositoryURL(body.repoURL).replace(/\.git$/, '');
    const readable = scopeFilter(ctx.actor, 'deployment:read');
    const entries = await kubeOf(ctx.services).listEntries(orgNamespace(ctx.actor.org.slug));
    const apps = entries
      .map((e) => e.app)
      .filter((a) => readable(scopeOfApp(a)) && builtFrom(a, url))
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const refused: UnprocessableError[] = [];
    const previewed = await mapLimit(apps, CONCURRENCY, async (app): Promise<PreviewedApp> => {
      const base = {
        name: app.metadata.name,
        namespace: app.spec.destination.namespace,
        appset: app.metadata.labels?.[APPSET_LABEL] ?? null,
      };
      try {
        const diff = await liveReadsOf(ctx.services).diffs.diff(ctx.actor.org.id, app, body.revision);
        return { ...base, status: changes(diff) ? 'changed' : 'unchanged', diff };
      } catch (err) {
        if (err instanceof UnprocessableError) refused.push(err);
        return { ...base, status: 'failed', error: describeError(err) };
      }
    });
    // The ref is the request's: when no App could find it, the request is wrong rather than each App.
    const first = refused[0];
    if (first && refused.length === previewed.length) throw first;
    const summary = { apps: previewed.length, changed: 0, unchanged: 0, failed: 0 };
    for (const p of previewed) summary[p.status]++;
    return {
      repoURL: body.repoURL,
      revision: body.revision,
      apps: previewed,
      summary,
      markdown: previewMarkdown(body.repoURL, body.revision, previewed),
    };
  },
});
