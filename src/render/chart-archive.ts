/**
 * Unpacking a chart archive (`.tgz`) from a chart repository or registry svc does not control, refusing what
 * Helm's own loader refuses and more: an entry with an absolute path or a `..` segment, a symlink, a hard link or
 * a device (anything but files and directories), entries outside one top directory, and archives larger than the
 * render bounds (compressed, unpacked, or in entries). Nothing is written outside the destination, ever: every
 * path is checked before its file is created, and no link exists that a later entry could be written through.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { describeBytes } from './limits.ts';
import { ManifestError } from './types.ts';

/** Bounds of one archive. */
export interface ArchiveBounds {
  /** Largest unpacked size (the tar stream) in bytes. */
  maxBytes: number;
  /** Most entries. */
  maxEntries: number;
  /** The setting that raises `maxBytes`, named in the error. */
  setting: string;
}

/** Why an entry name cannot be unpacked, or undefined. */
function entryProblem(name: string): string | undefined {
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.includes('\\')) return 'has an absolute path';
  if (name.split('/').includes('..')) return 'leaves the archive (..)';
  if (name.includes('\0')) return 'has a NUL byte in its name';
  return undefined;
}

/** The tar stream inside the gzip'd `archive`, within the unpacked bound. */
function gunzipped(archive: Buffer, what: string, bounds: ArchiveBounds): Buffer {
  try {
    return gunzipSync(archive, { maxOutputLength: bounds.maxBytes });
  } catch (err) {
    const over = (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    const why = over
      ? `is larger than ${describeBytes(bounds.maxBytes)} unpacked (${bounds.setting})`
      : 'is not a gzip archive';
    throw new ManifestError(what, `chart archive ${why}`, { cause: err });
  }
}

/** Why the entry `name` of `type`, under the top directory `top` (undefined before the first), is refused. */
function entryRefusal(name: string, type: string | null | undefined, top: string | undefined): string | undefined {
  const problem = entryProblem(name);
  if (problem) return problem;
  if (type !== 'file' && type !== 'contiguous-file' && type !== 'directory')
    return `is a ${type ?? 'special file'} (only files and directories)`;
  const first = name.split('/')[0] ?? '';
  if (top !== undefined && first !== top) return `is outside the chart's directory ${top}/`;
  return undefined;
}

/** Writes one file entry at `path`; an entry never replaces another (or anything a previous entry made). */
async function writeEntry(entry: AsyncIterable<unknown>, path: string, what: string, name: string): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk as Buffer);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, Buffer.concat(chunks), { mode: 0o644, flag: 'wx' }).catch((err: unknown) => {
    throw new ManifestError(what, `chart archive entry "${name.slice(0, 200)}" cannot be written`, { cause: err });
  });
}

/**
 * Unpacks the gzip'd tar `archive` (named `what` in errors) into the existing directory `dest` and answers the
 * chart's directory (`dest/<top>`, the archive's one top directory). Throws ManifestError naming the offending
 * entry or bound.
 */
export async function extractChartArchive(
  archive: Buffer,
  dest: string,
  what: string,
  bounds: ArchiveBounds,
): Promise<string> {
  const extract = tar.extract();
  extract.end(gunzipped(archive, what, bounds));
  let top: string | undefined;
  let entries = 0;
  for await (const entry of extract) {
    const { name: raw, type } = entry.header;
    const name = raw.replace(/^\.\//, '').replace(/\/+$/, '');
    entries++;
    const refuse = (why: string) => {
      entry.resume();
      throw new ManifestError(what, `chart archive entry "${name.slice(0, 200)}" ${why}`);
    };
    if (entries > bounds.maxEntries) refuse(`is past the ${bounds.maxEntries} entries an archive may hold`);
    if (name === '') {
      entry.resume();
      continue;
    }
    const refusal = entryRefusal(name, type, top);
    if (refusal) refuse(refusal);
    top ??= name.split('/')[0] ?? '';
    const path = normalize(join(dest, name));
    if (!path.startsWith(dest + sep)) refuse('leaves the archive');
    if (type === 'directory') {
      await mkdir(path, { recursive: true });
      entry.resume();
    } else await writeEntry(entry, path, what, name);
  }
  if (top === undefined) throw new ManifestError(what, 'chart archive is empty');
  return join(dest, top);
}
