import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderToolVersions, resolveRenderTool } from './tools.ts';

describe('resolveRenderTool', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prefers the pinned build in the tools directory', () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-tools-'));
    const path = join(dir, `helm-${renderToolVersions.helm}`, 'helm');
    mkdirSync(join(dir, `helm-${renderToolVersions.helm}`));
    writeFileSync(path, '');
    expect(resolveRenderTool('helm', dir)).toBe(path);
  });

  it('falls back to the bare name (looked up on PATH) when the pinned build is missing', () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-tools-'));
    expect(resolveRenderTool('kustomize', dir)).toBe('kustomize');
  });

  it('pins the same versions as scripts/build-binaries.sh', () => {
    const script = readFileSync(new URL('../../scripts/build-binaries.sh', import.meta.url), 'utf8');
    expect(script).toMatch(new RegExp(`^KUSTOMIZE_VERSION=${renderToolVersions.kustomize}$`, 'm'));
    expect(script).toMatch(new RegExp(`^HELM_VERSION=${renderToolVersions.helm}$`, 'm'));
    expect(script).toMatch(new RegExp(`^SOPS_VERSION=${renderToolVersions.sops}$`, 'm'));
  });
});
