/**
 * Bounding what the live-reading MCP tools (app_diff, app_logs) hand an agent: an agent's context is small and a
 * diff or a log can be megabytes, so both are cut to a size cap and say when they were. Pure apart from reading the
 * log stream.
 */
import type { Readable } from 'node:stream';
import type { AppDiff } from '../api/apps/diff-service.ts';
import type { PreviewReport } from '../api/preview/use-cases.ts';

/** Most bytes of diff or log text a tool result carries. */
export const TEXT_CAP_BYTES = 64 * 1024;
/** Most objects app_diff lists (those that differ; the summary counts all). */
export const DIFF_OBJECTS_MAX = 200;
/** Most log lines app_logs asks for. */
export const LOG_TOOL_TAIL_MAX = 1000;
/** Most bytes read from a log stream before giving up on the rest (a tail of very long lines). */
const LOG_READ_MAX_BYTES = 16 * TEXT_CAP_BYTES;

/** The first `max` bytes of `text`, cut at a line end where one is near, and whether it was cut. */
export function capHead(text: string, max = TEXT_CAP_BYTES): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return { text, truncated: false };
  const head = bytes.subarray(0, max).toString('utf8');
  const lastLine = head.lastIndexOf('\n');
  return { text: lastLine > 0 ? head.slice(0, lastLine + 1) : head, truncated: true };
}

/**
 * The app_diff result: the diff route's answer without each object's full live and desired YAML (the unified diff
 * carries what changes), listing only the objects that differ, the unified diff capped.
 */
export function diffDigest(diff: AppDiff): Record<string, unknown> {
  const differing = diff.objects.filter((o) => o.status !== 'same' || o.drift);
  const unified = capHead(diff.unified);
  return {
    name: diff.name,
    namespace: diff.namespace,
    sync_status: diff.sync_status,
    drifted: diff.drifted,
    recorded_sync_status: diff.recorded_sync_status,
    revision: diff.revision,
    summary: diff.summary,
    objects: differing.slice(0, DIFF_OBJECTS_MAX).map((o) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      namespace: o.namespace,
      name: o.name,
      status: o.status,
      ...(o.message ? { message: o.message } : {}),
      ...(o.drift ? { drift: o.drift } : {}),
    })),
    unified: unified.text,
    truncated: unified.truncated || differing.length > DIFF_OBJECTS_MAX,
  };
}

/**
 * The preview result (POST /preview): each App's result, counts and the objects that change (without the diffs'
 * YAML and patches: the Markdown summary carries them), at most DIFF_OBJECTS_MAX objects in all, the Markdown capped.
 */
export function previewDigest(report: PreviewReport): Record<string, unknown> {
  let budget = DIFF_OBJECTS_MAX;
  let cut = false;
  const apps = report.apps.map((a) => {
    const differing = (a.diff?.objects ?? []).filter((o) => o.status !== 'same');
    const shown = differing.slice(0, Math.max(0, budget));
    budget -= shown.length;
    cut ||= shown.length < differing.length;
    return {
      name: a.name,
      namespace: a.namespace,
      appset: a.appset,
      lifecycle: a.lifecycle,
      status: a.status,
      ...(a.error ? { error: a.error } : {}),
      ...(a.diff ? { summary: a.diff.summary, revision: a.diff.revision } : {}),
      objects: shown.map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, status: o.status })),
    };
  });
  const markdown = capHead(report.markdown);
  return {
    repoURL: report.repoURL,
    revision: report.revision,
    summary: report.summary,
    appsets: report.appsets,
    apps,
    markdown: markdown.text,
    truncated: markdown.truncated || cut,
  };
}

/**
 * Reads a (non-following) log stream to its end and answers its lines, keeping the newest `TEXT_CAP_BYTES` and
 * stopping after `LOG_READ_MAX_BYTES`; `truncated` when anything was dropped.
 */
export async function readLogTail(stream: Readable): Promise<{ lines: string[]; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let read = 0;
  let truncated = false;
  for await (const chunk of stream) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    chunks.push(buf);
    kept += buf.length;
    read += buf.length;
    while (kept - (chunks[0]?.length ?? 0) >= TEXT_CAP_BYTES) {
      kept -= chunks.shift()?.length ?? 0;
      truncated = true;
    }
    if (read >= LOG_READ_MAX_BYTES) {
      truncated = true;
      stream.destroy();
      break;
    }
  }
  let text = Buffer.concat(chunks).toString('utf8');
  if (Buffer.byteLength(text) > TEXT_CAP_BYTES) {
    text = Buffer.from(text).subarray(-TEXT_CAP_BYTES).toString('utf8');
    truncated = true;
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  // A cut text starts inside a line: drop that partial line.
  if (truncated && lines.length > 1) lines.shift();
  return { lines, truncated };
}
