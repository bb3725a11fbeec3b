/**
 * The Catalog source driver (`source.type: Catalog`, src/core/catalog.ts): the App names a template of its org's
 * catalog and gives params; the driver fetches the template (from the server: the operator over the internal
 * channel, the server from its store), fills the params in, and hands the resulting Git or HelmChart source to that
 * type's driver. Revisions are `<template>@v<N>/<revision of the source>`: a new template version is a new head (an
 * automated App deploys it like a new commit), and a rollback to an older revision renders the version it names.
 *
 * Which version a reconcile targets: the template's current version, unless the request names a revision (Rollback,
 * Approve). The current version is asked anew for each operation and at most every `ttlMs` otherwise.
 */
import type { AppResource } from '../../core/app-schema.ts';
import type { CatalogTemplateVersion } from '../../core/catalog.ts';
import { catalogRevision, parseCatalogRevision } from '../../core/catalog-revision.ts';
import { InputError } from '../../core/errors.ts';
import type { KubeObject } from '../../render/index.ts';
import type { RenderTarget, ResolvedSource, ResolveRequest, RevisionDetails, SourceDriver } from './types.ts';

/** A version of an org's template, the current one without `version`; NotFoundError when there is none. */
export type CatalogLookup = (orgNamespace: string, name: string, version?: number) => Promise<CatalogTemplateVersion>;

/** What the Catalog driver needs: the template lookup, and the drivers of the sources templates make. */
export interface CatalogDriverDeps {
  lookup?: CatalogLookup;
  /** How long a current version is reused by reconciles without an operation. */
  ttlMs?: number;
}

/** Versions kept in memory (they never change once written). */
const VERSIONS_KEPT = 1024;

/** The Catalog block of an App; InputError (a stall) when it is missing. */
export function catalogSourceOf(app: AppResource): { template: string; params?: Record<string, string> } {
  const catalog = app.spec.source.catalog;
  if (!catalog) throw new InputError('spec.source.catalog is required when source.type is Catalog');
  return catalog;
}

/** Resolves and renders `source.type: Catalog` through the Git and HelmChart drivers. */
export class CatalogDriver implements SourceDriver {
  readonly #deps: CatalogDriverDeps;
  readonly #inner: { Git: SourceDriver; HelmChart: SourceDriver };
  readonly #versions = new Map<string, CatalogTemplateVersion>();
  readonly #current = new Map<string, { at: number; version: number }>();

  constructor(deps: CatalogDriverDeps, inner: { Git: SourceDriver; HelmChart: SourceDriver }) {
    this.#deps = deps;
    this.#inner = inner;
  }

  async resolve(app: AppResource, request: ResolveRequest): Promise<ResolvedSource> {
    const { template } = catalogSourceOf(app);
    const head = await this.#head(app, template, request.operation !== undefined);
    const exact = request.target === 'head' ? undefined : parseCatalogRevision(request.target);
    if (request.target !== 'head' && (!exact || exact.template !== template)) {
      throw new InputError(`revision ${request.target} is not a revision of catalog template "${template}"`);
    }
    const headSource = await this.#instantiated(app, head);
    const headResolved = await headSource.driver.resolve(headSource.app, { ...request, target: 'head' });
    const headRevision = catalogRevision(template, head.version, headResolved.head);
    if (!exact) {
      return { head: headRevision, revision: catalogRevision(template, head.version, headResolved.revision) };
    }
    const at = await this.#instantiated(app, await this.#version(app, template, exact.version));
    const resolved = await at.driver.resolve(at.app, { ...request, target: exact.inner });
    return { head: headRevision, revision: catalogRevision(template, exact.version, resolved.revision) };
  }

  async render(app: AppResource, revision: string, target: RenderTarget): Promise<KubeObject[]> {
    const { template } = catalogSourceOf(app);
    const parsed = parseCatalogRevision(revision);
    if (!parsed || parsed.template !== template) {
      throw new InputError(`revision ${revision} is not a revision of catalog template "${template}"`);
    }
    const at = await this.#instantiated(app, await this.#version(app, template, parsed.version));
    return at.driver.render(at.app, parsed.inner, target);
  }

  /**
   * What the source's driver knows of each revision (a Git template's commit subject, author and date), asked of it
   * per template version; revisions of a version that cannot be read now are left out (unknown).
   */
  async describe(app: AppResource, revisions: readonly string[]): Promise<Map<string, RevisionDetails>> {
    const { template } = catalogSourceOf(app);
    const byVersion = new Map<number, { revision: string; inner: string }[]>();
    for (const revision of revisions) {
      const parsed = parseCatalogRevision(revision);
      if (!parsed || parsed.template !== template) continue;
      byVersion.set(parsed.version, [...(byVersion.get(parsed.version) ?? []), { revision, inner: parsed.inner }]);
    }
    const details = new Map<string, RevisionDetails>();
    for (const [version, entries] of byVersion) {
      try {
        const at = await this.#instantiated(app, await this.#version(app, template, version));
        const known =
          (await at.driver.describe?.(
            at.app,
            entries.map((e) => e.inner),
          )) ?? new Map();
        for (const e of entries) {
          const d = known.get(e.inner);
          if (d) details.set(e.revision, d);
        }
      } catch {
        // Unknown is an answer here: the history lists the revision without details.
      }
    }
    return details;
  }

  /** The App as the template version makes it: its source replaced by the filled-in template source. */
  async #instantiated(
    app: AppResource,
    template: CatalogTemplateVersion,
  ): Promise<{ app: AppResource; driver: SourceDriver }> {
    // Loaded with the first Catalog App: checking params loads Ajv (about 12 MiB of resident memory) that an
    // operator without Catalog Apps need not carry (bench/README.md, issue 29).
    const { instantiate } = await import('../../core/catalog.ts');
    let source: ReturnType<typeof instantiate>;
    try {
      source = instantiate(template, app.spec.source.catalog?.params);
    } catch (err) {
      if (err instanceof InputError) {
        throw new InputError(`catalog template "${template.name}" v${template.version}: ${err.message}`, {
          cause: err,
        });
      }
      throw err;
    }
    return { app: { ...app, spec: { ...app.spec, source } }, driver: this.#inner[source.type] };
  }

  /** The template's current version (asked anew when `fresh` or older than the TTL), remembered as a version. */
  async #head(app: AppResource, name: string, fresh: boolean): Promise<CatalogTemplateVersion> {
    const org = app.metadata.namespace ?? '';
    const key = `${org}/${name}`;
    const known = this.#current.get(key);
    if (known && !fresh && Date.now() - known.at < (this.#deps.ttlMs ?? 30_000)) {
      return this.#version(app, name, known.version);
    }
    const current = await this.#lookup()(org, name);
    this.#current.set(key, { at: Date.now(), version: current.version });
    this.#keep(`${key}@${current.version}`, current);
    return current;
  }

  /** Version `version` of the template (kept once read: versions never change). */
  async #version(app: AppResource, name: string, version: number): Promise<CatalogTemplateVersion> {
    const key = `${app.metadata.namespace ?? ''}/${name}@${version}`;
    const kept = this.#versions.get(key);
    if (kept) return kept;
    const found = await this.#lookup()(app.metadata.namespace ?? '', name, version);
    this.#keep(key, found);
    return found;
  }

  #keep(key: string, template: CatalogTemplateVersion): void {
    if (this.#versions.size >= VERSIONS_KEPT) this.#versions.delete(this.#versions.keys().next().value as string);
    this.#versions.set(key, template);
  }

  #lookup(): CatalogLookup {
    const lookup = this.#deps.lookup;
    if (!lookup) throw new InputError('source.type Catalog needs the server: this operator has no internal channel');
    return lookup;
  }
}
