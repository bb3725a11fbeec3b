import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from './errors.ts';
import { readDocuments } from './import-commands.ts';

describe('svc import: reading files', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tree = (files: Record<string, string>) => {
    const root = mkdtempSync(join(tmpdir(), 'svc-import-read-'));
    dirs.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  };

  it('reads every .yaml, .yml and .json file below a directory, in path order, hidden entries skipped', async () => {
    const root = tree({
      'b/app.yml': 'kind: B',
      'a.yaml': 'kind: A',
      'c.json': '{"kind": "C"}',
      'notes.txt': 'kind: T',
      '.git/config.yaml': 'kind: H',
    });
    expect(await readDocuments([root])).toBe('kind: A\n---\nkind: B\n---\n{"kind": "C"}');
    expect(await readDocuments([join(root, 'notes.txt')])).toBe('kind: T');
  });

  it('refuses a missing path and a directory without manifests (usage)', async () => {
    await expect(readDocuments(['/nonexistent/svc-import'])).rejects.toThrow(CliError);
    await expect(readDocuments([tree({ 'x.txt': '' })])).rejects.toThrow(/no .yaml/);
  });
});
