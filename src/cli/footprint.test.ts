import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * What `svc operator` and `svc server` load before they hold an App. Each package here costs a process 12–29 MiB
 * of resident memory (bench/README.md, issue 29: operator peak RSS at 1,000 Apps, the server's at 10,000) and is
 * needed only by a feature some Apps use, so it is imported on first use. The operator: TypeBox and Ajv (App schema
 * checks of AppSets and Catalog params), undici (outbound HTTP: notifications, registries, chart repositories),
 * @bufbuild/cel (custom health checks). The server: @bufbuild/cel (checking a written health check) and
 * age-encryption (a SOPS store's key). A static import of any of them into a role's graph fails this test.
 */
const LAZY_PACKAGES = {
  operator: ['typebox', 'ajv', 'undici', '@bufbuild/cel'],
  server: ['@bufbuild/cel', 'age-encryption'],
};

/** The npm packages the operator's entry module loads, read by a resolve hook in a fresh Node process. */
async function packagesLoadedBy(entry: string): Promise<string[]> {
  const script = `
    import module from 'node:module';
    const seen = new Set();
    module.registerHooks({
      resolve(specifier, context, next) {
        const resolved = next(specifier, context);
        const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(resolved.url);
        if (m) seen.add(m[1]);
        return resolved;
      },
    });
    await import(${JSON.stringify(entry)});
    console.log(JSON.stringify([...seen]));
  `;
  // process.execPath: the Node 24 of node_modules under npm (type stripping, module.registerHooks).
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as string[];
}

describe('what a role loads at start', () => {
  it('the operator loads no feature-only package until a feature needs it', async () => {
    const loaded = await packagesLoadedBy(fileURLToPath(new URL('../operator/index.ts', import.meta.url)));
    // The hook sees the packages every operator needs, so an empty answer (a broken hook) cannot pass.
    expect(loaded).toEqual(expect.arrayContaining(['yaml', 'prom-client']));
    expect(loaded.filter((p) => LAZY_PACKAGES.operator.includes(p))).toEqual([]);
  }, 60_000);

  it('the server loads no feature-only package until a feature needs it', async () => {
    const loaded = await packagesLoadedBy(fileURLToPath(new URL('../server.ts', import.meta.url)));
    expect(loaded).toEqual(expect.arrayContaining(['fastify', 'typebox']));
    expect(loaded.filter((p) => LAZY_PACKAGES.server.includes(p))).toEqual([]);
  }, 60_000);
});
