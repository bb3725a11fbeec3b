/**
 * Render cache: the renderer's output (before substitution, namespace defaulting and labels, which are per App)
 * keyed by everything that output depends on. Apps sharing a source render once per revision, and a resync at an
 * unchanged revision and spec renders nothing, so neither exports the revision nor runs kustomize or helm.
 *
 * What the output of `renderManifests` depends on (read the renderers before changing this):
 * - always: the org (scope), repoURL, the exact commit, `path` (default `.`), and the manifest type: the requested one, or the one
 *   detected from the files at that commit (so the detected type is remembered per repoURL, commit, path);
 * - Kustomize: `kustomize.images`, `namePrefix`, `components` (in order: each is a `kustomize edit`);
 * - Helm: release name (`helm.releaseName`, default the App's name), namespace (`helm.namespace`, default the
 *   destination namespace), `valuesFile`, `inlineValues`;
 * - Raw: nothing more.
 * Substitution and the destination namespace (for Raw and Kustomize) are applied after the cache, per App.
 */

import type { ManifestKind } from './detect.ts';
import type { RenderResult } from './git-source.ts';
import type { HelmOptions } from './helm.ts';
import type { KustomizeOptions } from './kustomize.ts';

/** What identifies one render: the App's Git source at an exact commit, its name and destination namespace. */
export interface RenderInput {
  /** The org the repository is read for: renders of one URL are kept apart per org, like the repositories. */
  scope?: string;
  repoURL: string;
  /** Full commit id. */
  revision: string;
  git: {
    path?: string;
    manifestType?: string;
    kustomize?: KustomizeOptions;
    helm?: HelmOptions;
  };
  appName: string;
  namespace: string;
}

/** Key of the source files alone (repoURL, commit, path, requested type): the detected manifest type is per this. */
export function sourceKey(input: RenderInput): string {
  return JSON.stringify([
    input.scope ?? '',
    input.repoURL,
    input.revision,
    input.git.path || '.',
    input.git.manifestType ?? '',
  ]);
}

/** Key of one render once the manifest type `kind` is known: the source plus the options that renderer reads. */
export function renderKey(input: RenderInput, kind: ManifestKind): string {
  const g = input.git;
  let options: unknown[] = [];
  if (kind === 'Kustomize') {
    options = [g.kustomize?.images ?? [], g.kustomize?.namePrefix ?? '', g.kustomize?.components ?? []];
  } else if (kind === 'Helm') {
    const inline = Object.entries(g.helm?.inlineValues ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    options = [
      g.helm?.releaseName || input.appName,
      g.helm?.namespace || input.namespace,
      g.helm?.valuesFile ?? '',
      inline,
    ];
  }
  return JSON.stringify([sourceKey(input), kind, options]);
}

/** A bounded LRU of render results, with single-flight per key. */
export class RenderCache {
  readonly #max: number;
  readonly #entries = new Map<string, RenderResult>();
  /** Detected manifest type per source key (small strings; bounded with the entries). */
  readonly #kinds = new Map<string, ManifestKind>();
  /** Renders running now whose manifest type is not known yet, per source key. */
  readonly #detecting = new Map<string, Promise<ManifestKind>>();
  /** Renders running now, per render key. */
  readonly #running = new Map<string, Promise<RenderResult>>();
  /** How many renders actually ran (for tests and metrics). */
  renders = 0;

  /** `max`: entries kept (least recently used ones are dropped first). */
  constructor(max = 256) {
    this.#max = max;
  }

  /** Number of cached renders. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The render of `input`: from the cache, joined with an identical render already running, or produced by
   * `produce` (export and render; it is called only on a miss). Every caller gets its own deep copy, so no App
   * can change another's objects. A failed render is not cached: the error goes to its caller, and callers that
   * were waiting for it render themselves (and get their own error).
   */
  async render(input: RenderInput, produce: () => Promise<RenderResult>): Promise<RenderResult> {
    const src = sourceKey(input);
    // No await unless there is something to wait for: concurrent first callers must see each other's render.
    let kind = this.#kinds.get(src);
    const detecting = kind === undefined ? this.#detecting.get(src) : undefined;
    if (detecting) kind = await detecting.catch(() => undefined);
    if (kind !== undefined) {
      const key = renderKey(input, kind);
      const hit = this.#entries.get(key);
      if (hit) {
        this.#entries.delete(key);
        this.#entries.set(key, hit);
        return copy(hit);
      }
      const running = this.#running.get(key);
      const joined = running ? await running.catch(() => undefined) : undefined;
      if (joined) return copy(joined);
      const late = this.#entries.get(key); // another caller may have finished while this one waited
      if (late) return copy(late);
      const p = this.#produce(input, produce);
      this.#running.set(key, p);
      try {
        return copy(await p);
      } finally {
        if (this.#running.get(key) === p) this.#running.delete(key);
      }
    }
    const p = this.#produce(input, produce);
    const detected = p.then((r) => r.manifestType);
    if (!this.#detecting.has(src)) {
      this.#detecting.set(src, detected);
      const done = () => {
        if (this.#detecting.get(src) === detected) this.#detecting.delete(src);
      };
      detected.then(done, done);
    }
    return copy(await p);
  }

  async #produce(input: RenderInput, produce: () => Promise<RenderResult>): Promise<RenderResult> {
    this.renders++;
    const result = await produce();
    const src = sourceKey(input);
    this.#kinds.delete(src);
    this.#kinds.set(src, result.manifestType);
    const key = renderKey(input, result.manifestType);
    this.#entries.delete(key);
    this.#entries.set(key, result);
    while (this.#entries.size > this.#max) this.#drop(this.#entries);
    while (this.#kinds.size > this.#max * 4) this.#drop(this.#kinds);
    return result;
  }

  #drop(map: Map<string, unknown>): void {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}

function copy(r: RenderResult): RenderResult {
  return { objects: structuredClone(r.objects), manifestType: r.manifestType };
}
