/**
 * Bounds of one render, so a hostile or broken repository cannot hold the operator: how long a renderer process
 * (kustomize, helm, sops) may run, and how many bytes of manifest text one render may produce (the Raw files under
 * the path together, or one tool's output). Config sets them (SVC_RENDER_TIMEOUT, SVC_RENDER_MAX_MIB); a render
 * over either fails with a ManifestError naming the bound, the App shows SyncError and is retried.
 */

export interface RenderLimits {
  /** A renderer process is killed after this many milliseconds. */
  timeoutMs: number;
  /** Largest manifest text of one render in bytes (Raw files summed, or one tool's standard output). */
  maxBytes: number;
  /** Largest checkout in bytes (the `git archive` stream of the revision: the whole tree, not only the path). */
  maxCheckoutBytes: number;
}

/**
 * 2 minutes and 64 MiB: far above any real chart or overlay, small enough to keep the operator's memory bounded;
 * checkouts up to 1 GiB on disk (a monorepo's tree, not its history).
 */
export const DEFAULT_RENDER_LIMITS: RenderLimits = {
  timeoutMs: 120_000,
  maxBytes: 64 * 1024 * 1024,
  maxCheckoutBytes: 1024 * 1024 * 1024,
};

/** The setting that changes each bound, named in errors so the reader knows what to raise. */
export const RENDER_LIMIT_SETTINGS = {
  timeoutMs: 'SVC_RENDER_TIMEOUT',
  maxBytes: 'SVC_RENDER_MAX_MIB',
  maxCheckoutBytes: 'SVC_CHECKOUT_MAX_MIB',
} as const;

/** "2m" / "1.5 s" style text for an error message. */
export function describeMs(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`;
}

/** "64 MiB" style text for an error message. */
export function describeBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
