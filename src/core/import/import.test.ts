/**
 * The importer against real manifests (test/fixtures/import/README.md says where each comes from): Argo CD's example
 * Applications, Flux's example repository, and objects written the way each project's documentation writes them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCreateRequest } from '../create-request.ts';
import { InputError } from '../errors.ts';
import { type ImportEntry, mapImport, parseImportDocuments } from './index.ts';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/import/', import.meta.url));
const load = (...files: string[]) =>
  parseImportDocuments(files.map((f) => readFileSync(join(FIXTURES, f), 'utf8')).join('\n---\n'));
const entry = (entries: ImportEntry[], kind: string, name: string) => {
  const e = entries.find((x) => x.object.kind === kind && x.object.name === name);
  if (!e) throw new Error(`no entry for ${kind} ${name}`);
  return e;
};
const field = (e: ImportEntry, path: string) => e.fields.find((f) => f.field === path);

/** The passwords and keys written into the fixtures' Secrets. */
const SECRETS = [
  'argo-repo-password-7f3c9e1d5b',
  'argo-creds-password-2a8e6b4f0c',
  'not-a-real-key-0d9a8c7b6e5f',
  'flux-git-password-4d8b2f6e1a',
  'ghcr-token-9b1e7d3a5c0f',
];

describe("Argo CD's example apps (apps/ rendered)", () => {
  const { report } = mapImport(load('argocd/apps.yaml'));

  it('maps every Application but the three plugin ones, with a summary', () => {
    expect(report.summary).toEqual({
      objects: 14,
      mapped: 11,
      partial: 0,
      unmapped: 3,
      apps: 11,
      appsets: 0,
      repositories: 0,
      registries: 0,
    });
    const unmapped = report.entries.filter((e) => e.result === 'unmapped');
    expect(unmapped.map((e) => e.object.name)).toEqual([
      'example.plugin-kasane',
      'example.plugin-kustomized-helm',
      'example.plugin-nix',
    ]);
    for (const e of unmapped) expect(e.reason).toMatch(/plugin/);
  });

  it('answers the App create payload of guestbook, renamed to a DNS label, field by field', () => {
    const e = entry(report.entries, 'Application', 'example.guestbook');
    expect(e.becomes).toEqual({ kind: 'App', name: 'example-guestbook' });
    expect(e.app).toEqual({
      name: 'example-guestbook',
      namespace: 'guestbook',
      cluster: undefined,
      source: {
        type: 'Git',
        git: { repoURL: 'https://github.com/argoproj/argocd-example-apps', branch: 'master', path: 'guestbook' },
      },
      sync_policy: { automated: true, prune: true, selfHeal: true },
    });
    expect(field(e, 'spec.source.targetRevision')).toMatchObject({ status: 'mapped', to: 'source.git.branch' });
    expect(field(e, 'spec.syncPolicy.syncOptions[CreateNamespace=true]')).toMatchObject({ status: 'equivalent' });
    expect(field(e, 'metadata.finalizers[resources-finalizer.argocd.argoproj.io]')).toMatchObject({
      status: 'equivalent',
    });
    expect(field(e, 'spec.destination.server')).toMatchObject({ status: 'mapped', to: 'cluster' });
    expect(field(e, 'metadata.name')).toMatchObject({ to: 'name', note: expect.stringMatching(/DNS-1123/) });
  });

  it('gives a chart in Git its release name and manifest type', () => {
    const e = entry(report.entries, 'Application', 'example.helm-guestbook');
    expect(e.app?.source).toEqual({
      type: 'Git',
      git: {
        repoURL: 'https://github.com/argoproj/argocd-example-apps',
        branch: 'master',
        path: 'helm-guestbook',
        manifestType: 'Helm',
        helm: { releaseName: 'helm-guestbook' },
      },
    });
  });

  it('answers payloads the App API accepts', () => {
    for (const e of report.entries.filter((x) => x.app)) expect(() => parseCreateRequest(e.app)).not.toThrow();
  });

  it('reads every field (none is left "not understood")', () => {
    const missed = report.entries.flatMap((e) => e.fields.filter((f) => f.note === 'not understood by the importer'));
    expect(missed).toEqual([]);
  });
});

describe('Argo CD objects as its documentation writes them', () => {
  const { report, credentials } = mapImport(
    load('argocd/docs-applications.yaml', 'argocd/docs-repositories.yaml', 'argocd/docs-appset-project.yaml'),
  );

  it('maps a Helm chart Application to a HelmChart App: values, value files and parameters merged', () => {
    const e = entry(report.entries, 'Application', 'sealed-secrets');
    expect(e.result).toBe('mapped');
    expect(e.app).toMatchObject({
      name: 'sealed-secrets',
      namespace: 'kubeseal',
      source: {
        type: 'HelmChart',
        helmChart: {
          repoURL: 'https://bitnami-labs.github.io/sealed-secrets',
          chart: 'sealed-secrets',
          version: '1.16.1',
          valuesFiles: ['values-production.yaml'],
          values: { ingress: { enabled: true }, service: { type: 'LoadBalancer' } },
          releaseName: 'sealed-secrets',
        },
      },
      sync_policy: { automated: false, prune: false, selfHeal: false },
    });
    expect(() => parseCreateRequest(e.app)).not.toThrow();
  });

  it('reports a multi-source Application unmapped, with the reason', () => {
    const e = entry(report.entries, 'Application', 'prometheus');
    expect(e.result).toBe('unmapped');
    expect(e.app).toBeUndefined();
    expect(e.reason).toMatch(/multi-source/);
    expect(field(e, 'spec.sources')).toMatchObject({ status: 'unsupported' });
  });

  it('lists each field svc does not have, and still maps the rest', () => {
    const e = entry(report.entries, 'Application', 'kustomize-guestbook-prod');
    expect(e.result).toBe('partial');
    expect(e.app).toMatchObject({
      namespace: 'guestbook-prod',
      source: {
        type: 'Git',
        git: {
          manifestType: 'Kustomize',
          kustomize: { namePrefix: 'prod-', images: ['gcr.io/heptio-images/ks-guestbook-demo:0.2'] },
        },
      },
      sync_policy: { automated: true, prune: true, selfHeal: false },
    });
    expect(e.app?.cluster).toBeUndefined();
    const unsupported = e.fields.filter((f) => f.status === 'unsupported').map((f) => f.field);
    expect(unsupported).toEqual(
      expect.arrayContaining([
        'spec.project',
        'spec.source.targetRevision',
        'spec.source.kustomize.nameSuffix',
        'spec.source.kustomize.commonLabels',
        'spec.ignoreDifferences',
        'spec.syncPolicy.automated.allowEmpty',
        'spec.syncPolicy.retry',
      ]),
    );
    expect(field(e, 'spec.syncPolicy.syncOptions[ServerSideApply=true]')).toMatchObject({ status: 'equivalent' });
    expect(field(e, 'spec.syncPolicy.syncOptions[PruneLast=true]')).toMatchObject({ status: 'equivalent' });
    expect(() => parseCreateRequest(e.app)).not.toThrow();
  });

  it('refuses a pinned commit and an unregistered destination; a registered one maps', () => {
    const e = entry(report.entries, 'Application', 'guestbook-pinned');
    expect(e.result).toBe('unmapped');
    expect(e.reason).toMatch(/commit or a tag/);
    expect(e.reason).toMatch(/https:\/\/10\.20\.30\.40:6443 is not a cluster registered in svc/);
    const docs = load('argocd/apps.yaml').slice(1, 2);
    const spec = docs[0]?.['spec'] as { destination: { server: string } };
    spec.destination.server = 'https://10.20.30.40:6443';
    const again = mapImport(docs, { clusters: { 'https://10.20.30.40:6443': 'edge' } }).report.entries[0];
    expect(again?.app?.cluster).toBe('edge');
  });

  it('turns repository Secrets and credential templates into repositories, credentials kept apart', () => {
    const repo = entry(report.entries, 'Secret', 'private-repo');
    expect(repo.repository).toEqual({
      name: 'private-repo',
      type: 'git',
      url: 'https://github.com/argoproj/private-repo',
      username: 'my-username',
      has_password: true,
      has_ssh_private_key: false,
      has_tls_client_key: false,
    });
    const creds = entry(report.entries, 'Secret', 'private-repo-creds');
    expect(creds.repository?.url).toBe('https://github.com/argoproj');
    expect(field(creds, 'data.url')?.note).toMatch(/credential template/);
    const oci = entry(report.entries, 'Secret', 'bitnami-oci');
    expect(oci.repository).toMatchObject({
      name: 'bitnami',
      type: 'helm',
      url: 'oci://registry-1.docker.io/bitnamicharts',
    });
    expect(credentials.repositories.get('private-repo')).toEqual({
      username: 'my-username',
      password: 'argo-repo-password-7f3c9e1d5b',
    });
    const app = entry(report.entries, 'Secret', 'github-app-repo');
    expect(app.result).toBe('unmapped');
    expect(app.reason).toMatch(/GitHub App/);
  });

  it('reports an ApplicationSet to an unregistered cluster and AppProject unmapped, saying what to do instead', () => {
    // ApplicationSets that map: ./applicationset.test.ts.
    const set = entry(report.entries, 'ApplicationSet', 'guestbook');
    expect(set.result).toBe('unmapped');
    expect(set.reason).toMatch(/https:\/\/1\.2\.3\.4 is not a cluster registered in svc/);
    expect(field(set, 'spec.generators[0].list.elements')?.status).toBe('mapped');
    const project = entry(report.entries, 'AppProject', 'my-project');
    expect(project.result).toBe('unmapped');
    expect(project.reason).toMatch(/teams and role bindings/);
  });
});

describe("Flux's example repository", () => {
  it('maps a HelmRelease of a HelmRepository to a HelmChart App', () => {
    const { report } = mapImport(load('flux/podinfo-repository.yaml', 'flux/podinfo-release.yaml'));
    const release = entry(report.entries, 'HelmRelease', 'podinfo');
    expect(release.result).toBe('partial');
    expect(release.app).toMatchObject({
      name: 'podinfo',
      namespace: 'podinfo',
      source: {
        type: 'HelmChart',
        helmChart: { repoURL: 'https://stefanprodan.github.io/podinfo', chart: 'podinfo', releaseName: 'podinfo' },
      },
      sync_policy: { automated: true, prune: true, selfHeal: false },
    });
    expect(
      (release.app as unknown as { source: { helmChart: { values: object } } }).source.helmChart.values,
    ).toMatchObject({
      redis: { enabled: true },
    });
    expect(field(release, 'spec.install')).toMatchObject({ status: 'unsupported' });
    expect(() => parseCreateRequest(release.app)).not.toThrow();
    const repo = entry(report.entries, 'HelmRepository', 'podinfo');
    expect(repo).toMatchObject({ result: 'mapped', partOf: [{ kind: 'App', name: 'podinfo' }] });
  });

  it('maps a HelmRelease of an OCIRepository (chartRef) to an OCI HelmChart App', () => {
    const { report } = mapImport(load('flux/cert-manager.yaml'));
    const release = entry(report.entries, 'HelmRelease', 'cert-manager');
    expect(release.app?.source).toMatchObject({
      type: 'HelmChart',
      helmChart: { repoURL: 'oci://quay.io/jetstack/charts', chart: 'cert-manager', version: '1.x' },
    });
    expect(() => parseCreateRequest(release.app)).not.toThrow();
    expect(entry(report.entries, 'Namespace', 'cert-manager').reason).toMatch(/not an Argo CD or Flux object/);
  });

  it('reports a Kustomization whose source is not imported (an ExternalArtifact) unmapped', () => {
    const { report } = mapImport(load('flux/staging-apps.yaml', 'flux/staging-infrastructure.yaml'));
    expect(report.summary).toMatchObject({ objects: 3, unmapped: 3, apps: 0 });
    expect(entry(report.entries, 'Kustomization', 'apps').reason).toMatch(
      /ExternalArtifact flux-system\/apps is not among the imported documents/,
    );
  });
});

describe('Flux objects as its documentation writes them', () => {
  const { report, credentials } = mapImport(
    load('flux/docs-get-started.yaml', 'flux/docs-private.yaml', 'flux/docs-images.yaml'),
  );

  it('maps the get-started Kustomization to a Git App', () => {
    const e = entry(report.entries, 'Kustomization', 'podinfo');
    expect(e.app).toEqual({
      name: 'podinfo',
      namespace: 'default',
      source: {
        type: 'Git',
        git: { repoURL: 'https://github.com/stefanprodan/podinfo', branch: 'master', path: 'kustomize' },
      },
      sync_policy: { automated: true, prune: true, selfHeal: false },
    });
    expect(field(e, 'spec.timeout')).toMatchObject({ status: 'unsupported' });
    expect(entry(report.entries, 'GitRepository', 'podinfo').partOf).toEqual([{ kind: 'App', name: 'podinfo' }]);
  });

  it('carries images and substitution, lists substituteFrom and dependsOn', () => {
    const e = entry(report.entries, 'Kustomization', 'team-web');
    expect(e.app?.source).toEqual({
      type: 'Git',
      git: {
        repoURL: 'https://git.example.com/team/apps',
        branch: 'main',
        path: 'web',
        kustomize: { images: ['podinfo=ghcr.io/stefanprodan/podinfo:6.5.0'] },
        substitution: { cluster_env: 'prod' },
      },
    });
    expect(field(e, 'spec.postBuild.substituteFrom')).toMatchObject({ status: 'unsupported' });
    expect(field(e, 'spec.dependsOn')).toMatchObject({ status: 'unsupported' });
    expect(() => parseCreateRequest(e.app)).not.toThrow();
  });

  it('maps a chart in a GitRepository to a Helm Git App and lists postRenderers', () => {
    const e = entry(report.entries, 'HelmRelease', 'web-chart');
    expect(e.app?.source).toEqual({
      type: 'Git',
      git: {
        repoURL: 'https://git.example.com/team/apps',
        branch: 'main',
        manifestType: 'Helm',
        path: 'charts/web',
        helm: { inlineValues: { replicaCount: '2' } },
      },
    });
    expect(field(e, 'spec.postRenderers')).toMatchObject({
      status: 'unsupported',
      note: expect.stringMatching(/post-renderers/),
    });
  });

  it('turns a GitRepository with its Secret into a repository, and an ImageRepository into a registry', () => {
    const repo = entry(report.entries, 'GitRepository', 'team-apps');
    expect(repo.repository).toMatchObject({
      name: 'team-apps',
      type: 'git',
      url: 'https://git.example.com/team/apps',
      username: 'git-user',
      has_password: true,
    });
    expect(repo.partOf?.map((p) => p.name).sort()).toEqual(['team-web', 'web-chart']);
    expect(entry(report.entries, 'Secret', 'basic-access-auth').partOf).toEqual([
      { kind: 'Repository', name: 'team-apps' },
    ]);
    expect(credentials.repositories.get('team-apps')).toEqual({
      username: 'git-user',
      password: 'flux-git-password-4d8b2f6e1a',
    });
    const registry = entry(report.entries, 'ImageRepository', 'podinfo');
    expect(registry.registry).toEqual({ name: 'podinfo', host: 'ghcr.io', username: 'flux-bot', has_password: true });
    expect(credentials.registries.get('podinfo')).toEqual({
      username: 'flux-bot',
      password: 'ghcr-token-9b1e7d3a5c0f',
    });
    expect(entry(report.entries, 'ImagePolicy', 'podinfo').reason).toMatch(/no image policies/);
  });
});

describe('the report', () => {
  it('never carries a credential, whatever it imports', () => {
    const all = readdirSync(join(FIXTURES, 'argocd'))
      .map((f) => `argocd/${f}`)
      .concat(readdirSync(join(FIXTURES, 'flux')).map((f) => `flux/${f}`));
    const text = JSON.stringify(mapImport(load(...all)).report);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).not.toContain(Buffer.from('flux-git-password-4d8b2f6e1a').toString('base64'));
  });

  it('gives clashing names a suffix', () => {
    const { report } = mapImport(
      load('flux/podinfo-repository.yaml', 'flux/podinfo-release.yaml', 'flux/docs-get-started.yaml'),
    );
    expect(report.entries.filter((e) => e.app).map((e) => e.app?.name)).toEqual(['podinfo', 'podinfo-2']);
  });

  it('survives objects of the wrong shape, and never writes a prototype', () => {
    const docs = parseImportDocuments(
      [
        'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: 3\nspec: {source: [], sources: 7}',
        'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: x}\nspec:\n  destination: {server: in-cluster, namespace: a}\n  source: {repoURL: https://h/r.git, chart: c, helm: {values: "__proto__: {polluted: 1}", parameters: [{name: __proto__.polluted, value: "1"}, {name: 5}]}}',
        'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: k}\nspec: {sourceRef: [], images: [1, {name: 2}], postBuild: {substitute: 3}}',
        'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: h}\nspec: {chartRef: {kind: OCIRepository, name: o}}',
        'apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: o}\nspec: {url: "oci://"}',
        'apiVersion: v1\nkind: Secret\nmetadata: {name: s, labels: {argocd.argoproj.io/secret-type: repository}}\ndata: {url: "%%%"}',
        `a: ${'['.repeat(40)}${']'.repeat(40)}`,
      ].join('\n---\n'),
    );
    const { report } = mapImport(docs);
    expect(report.summary.objects).toBe(7);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it("takes Argo CD's in-cluster address as the cluster the objects were read from (inCluster)", () => {
    const docs = parseImportDocuments(
      'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: x}\nspec:\n  destination: {server: https://kubernetes.default.svc, namespace: a}\n  source: {repoURL: https://h/r.git, path: p, targetRevision: main}',
    );
    expect(mapImport(docs).report.entries[0]?.app).not.toHaveProperty('cluster');
    const read = mapImport(docs, { inCluster: 'east' }).report.entries[0];
    expect(read?.app).toMatchObject({ cluster: 'east', namespace: 'a' });
    expect(read?.fields).toContainEqual(
      expect.objectContaining({ field: 'spec.destination.server', note: expect.stringMatching(/read from \(east\)/) }),
    );
  });

  it('refuses text that is not YAML objects', () => {
    expect(() => parseImportDocuments('a: [')).toThrow(InputError);
    expect(() => parseImportDocuments('- 1\n- 2')).toThrow(/not an object/);
    expect(parseImportDocuments('---\n---\nkind: List\napiVersion: v1\nitems: [{kind: A}, {kind: B}]')).toHaveLength(2);
  });
});
