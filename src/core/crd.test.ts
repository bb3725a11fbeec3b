import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APP_CATEGORY, buildAppCrd, buildAppSetCrd, renderAppCrdYaml, renderAppSetCrdYaml } from './crd.ts';

const checkedIn = readFileSync(new URL('../../deploy/crds/apps.cd.svc.space.yaml', import.meta.url), 'utf8');
/** The chart's copy, which its CRD template reads (deploy/chart/templates/crd.yaml). */
const inChart = readFileSync(new URL('../../deploy/chart/files/apps.cd.svc.space.yaml', import.meta.url), 'utf8');

/** Every key anywhere in a schema, to prove no JSON-Schema-only keyword leaks into the structural schema. */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      if (k !== 'properties') keysOf(v, into);
      else for (const child of Object.values(v as object)) keysOf(child, into);
    }
  }
  return into;
}

describe('App CRD', () => {
  it('is checked in exactly as generated (run `npm run generate` after changing src/core/app-schema.ts)', () => {
    expect(checkedIn).toBe(renderAppCrdYaml());
  });

  it("is the Helm chart's CRD too (`npm run generate` writes both)", () => {
    expect(inChart).toBe(renderAppCrdYaml());
  });

  it('names the group, version, kind, plural and short name of the contract, with a status subresource', () => {
    const crd = parse(checkedIn);
    expect(crd.metadata.name).toBe('apps.cd.svc.space');
    expect(crd.spec.group).toBe('cd.svc.space');
    expect(crd.spec.names).toMatchObject({
      kind: 'App',
      plural: 'apps',
      shortNames: ['app'],
      categories: [APP_CATEGORY],
    });
    const [version] = crd.spec.versions;
    expect(version.name).toBe('v1alpha1');
    expect(version.subresources).toEqual({ status: {} });
    expect(version.additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual([
      'Sync',
      'Health',
      'Revision',
      'Age',
    ]);
  });

  it('carries the defaults and enums of contract §2.3', () => {
    const spec = (buildAppCrd() as any).spec.versions[0].schema.openAPIV3Schema.properties.spec;
    const git = spec.properties.source.properties.git;
    expect(spec.properties.source.properties.type.enum).toEqual(['Git', 'Image', 'HelmChart', 'Catalog']);
    expect(git.properties.branch.default).toBe('main');
    expect(git.properties.path.default).toBe('.');
    expect(git.properties.manifestType).toMatchObject({ enum: ['Auto', 'Raw', 'Helm', 'Kustomize'], default: 'Auto' });
    expect(git.properties.substitution.additionalProperties).toEqual({ type: 'string' });
    expect(spec.properties.syncPolicy.properties.automated.default).toBe(false);
    expect(spec.properties.operation.properties.kind.enum).toEqual([
      'Sync',
      'Deploy',
      'Rollback',
      'Restart',
      'Approve',
    ]);
    const image = spec.properties.source.properties.image;
    expect(image.properties.tagPolicy).toMatchObject({ enum: ['Pinned', 'Follow'], default: 'Pinned' });
    expect(image.properties.workload.properties.port.default).toBe(80);
    expect(image.properties.workload.properties.replicas.default).toBe(1);
    expect(image.properties.workload.properties.resources.default).toEqual({
      requests: { cpu: '100m', memory: '128Mi' },
    });
  });

  it('describes every field but metadata, whose schema the apiserver owns (kubectl explain shows each one)', () => {
    const root = (buildAppCrd() as any).spec.versions[0].schema.openAPIV3Schema;
    const undescribed: string[] = [];
    let fields = 0;
    const walk = (schema: any, path: string) => {
      for (const [name, child] of Object.entries<any>(schema.properties ?? {})) {
        if (path === '' && name === 'metadata') continue;
        fields++;
        if (typeof child.description !== 'string' || child.description.trim() === '')
          undescribed.push(`${path}${name}`);
        walk(child, `${path}${name}.`);
      }
      if (schema.items) walk(schema.items, `${path.replace(/\.$/, '')}[].`);
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        walk(schema.additionalProperties, `${path.replace(/\.$/, '')}{}.`);
      }
    };
    walk(root, '');
    expect(fields).toBeGreaterThan(100);
    expect(undescribed).toEqual([]);
  });

  it('uses only structural-schema keywords', () => {
    const keys = keysOf((buildAppCrd() as any).spec.versions[0].schema.openAPIV3Schema);
    for (const forbidden of ['patternProperties', '$id', 'anyOf', 'const', '$ref'])
      expect(keys).not.toContain(forbidden);
  });
});

describe('AppSet CRD', () => {
  const appsets = readFileSync(new URL('../../deploy/crds/appsets.cd.svc.space.yaml', import.meta.url), 'utf8');

  it('is checked in exactly as generated (run `npm run generate` after changing src/core/appset-schema.ts)', () => {
    expect(appsets).toBe(renderAppSetCrdYaml());
  });

  it("is the Helm chart's CRD too (`npm run generate` writes both)", () => {
    const chartCopy = readFileSync(
      new URL('../../deploy/chart/files/appsets.cd.svc.space.yaml', import.meta.url),
      'utf8',
    );
    expect(chartCopy).toBe(renderAppSetCrdYaml());
  });

  it('shares the App CRD group, version and category, and uses only structural keywords', () => {
    const crd = buildAppSetCrd() as any;
    expect(crd.metadata.name).toBe('appsets.cd.svc.space');
    expect(crd.spec.names).toMatchObject({ kind: 'AppSet', categories: [APP_CATEGORY] });
    const keys = keysOf(crd.spec.versions[0].schema.openAPIV3Schema);
    for (const k of ['$id', 'patternProperties', 'anyOf', 'oneOf', '$ref']) expect(keys.has(k)).toBe(false);
  });
});
