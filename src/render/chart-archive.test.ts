import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { afterEach, describe, expect, it } from 'vitest';
import { extractChartArchive } from './chart-archive.ts';

type Entry = { name: string; type?: 'file' | 'directory' | 'symlink' | 'link'; content?: string; linkname?: string };

/** A gzip'd tar of `entries`, written by tar-stream's packer (what a hostile repository could serve). */
async function archive(entries: Entry[]): Promise<Buffer> {
  const pack = tar.pack();
  for (const e of entries) {
    const header = { name: e.name, type: e.type ?? 'file', ...(e.linkname ? { linkname: e.linkname } : {}) };
    if (e.type === 'file' || e.type === undefined) pack.entry(header, e.content ?? '');
    else pack.entry(header);
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

const bounds = { maxBytes: 1024 * 1024, maxEntries: 100, setting: 'SVC_CHECKOUT_MAX_MIB' };
const dirs: string[] = [];
function dest(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-archive-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('chart archives', () => {
  it('unpacks a chart into its one top directory', async () => {
    const into = dest();
    const chartDir = await extractChartArchive(
      await archive([
        { name: 'web/Chart.yaml', content: 'name: web\nversion: 1.0.0\n' },
        { name: 'web/templates', type: 'directory' },
        { name: 'web/templates/cm.yaml', content: 'kind: ConfigMap\n' },
      ]),
      into,
      'web@1.0.0',
      bounds,
    );
    expect(chartDir).toBe(join(into, 'web'));
    expect(readFileSync(join(chartDir, 'templates/cm.yaml'), 'utf8')).toBe('kind: ConfigMap\n');
  });

  it.each<[string, Entry[], RegExp]>([
    ['a ../ path', [{ name: 'web/../../evil.yaml', content: 'x' }], /leaves the archive/],
    ['an absolute path', [{ name: '/etc/evil', content: 'x' }], /absolute path/],
    [
      'a symlink',
      [
        { name: 'web/Chart.yaml', content: 'x' },
        { name: 'web/t', type: 'symlink', linkname: '/etc' },
      ],
      /is a symlink/,
    ],
    [
      'a hard link',
      [
        { name: 'web/Chart.yaml', content: 'x' },
        { name: 'web/h', type: 'link', linkname: 'web/Chart.yaml' },
      ],
      /is a link/,
    ],
    [
      'two top directories',
      [
        { name: 'web/Chart.yaml', content: 'x' },
        { name: 'other/x', content: 'y' },
      ],
      /outside the chart's directory web/,
    ],
  ])('refuses %s, writing nothing outside the destination', async (_what, entries, message) => {
    const into = dest();
    await expect(extractChartArchive(await archive(entries), into, 'web@1.0.0', bounds)).rejects.toThrow(message);
    expect(readdirSync(join(into, '..')).includes('evil.yaml')).toBe(false);
  });

  it('refuses an archive larger than the bound unpacked, and one that is not gzip', async () => {
    const big = await archive([{ name: 'web/big', content: 'x'.repeat(2 * 1024 * 1024) }]);
    await expect(extractChartArchive(big, dest(), 'web@1.0.0', bounds)).rejects.toThrow(
      /larger than 1 MiB unpacked \(SVC_CHECKOUT_MAX_MIB\)/,
    );
    await expect(extractChartArchive(Buffer.from('nope'), dest(), 'web@1.0.0', bounds)).rejects.toThrow(
      /not a gzip archive/,
    );
  });
});
