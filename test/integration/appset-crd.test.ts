/**
 * The generated AppSet CRD (issue 27) on a real kube-apiserver, applied from deploy/crds/ like the App CRD: an
 * AppSet using every generator (Argo CD's example apps as the Git source) passes strict field validation and reads
 * back unpruned with the schema's defaults; a wrongly typed field is refused by the apiserver.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { APP_GROUP, APP_VERSION, APPSET_PLURAL } from '../../src/core/app-names.ts';
import { appSetProblems } from '../../src/core/appset-rules.ts';
import type { AppSetSpec } from '../../src/core/appset-schema.ts';
import { connect, type KubeConnection } from '../../src/kube/index.ts';

const ns = 'appset-crd-samples';
const collection = `/apis/${APP_GROUP}/${APP_VERSION}/namespaces/${ns}/${APPSET_PLURAL}`;
const EXAMPLES = 'https://github.com/argoproj/argocd-example-apps.git';
let kube: KubeConnection;
type Obj = Record<string, unknown> & { spec?: Record<string, unknown> };

const create = (body: unknown, query: { dryRun?: 'All'; fieldValidation?: 'Strict' } = {}) =>
  kube.client.request<Obj>(collection, { method: 'POST', body, query });

const spec: AppSetSpec = {
  generators: [
    { list: { elements: [{ name: 'east', path: 'guestbook' }] } },
    {
      matrix: {
        generators: [
          { clusters: { selector: { matchLabels: { env: 'prod' } }, includeManagement: false } },
          {
            gitDirectories: {
              repoURL: EXAMPLES,
              revision: 'master',
              directories: [{ path: '*' }, { path: 'x', exclude: true }],
            },
          },
        ],
      },
    },
    {
      merge: {
        mergeKeys: ['name'],
        generators: [
          { clusters: {} },
          { gitFiles: { repoURL: EXAMPLES, files: [{ path: 'clusters/*/config.json' }], repositoryRef: 'examples' } },
        ],
      },
    },
  ],
  template: {
    metadata: { name: '{{ name }}-{{ path }}', labels: { env: '{{ name }}' } },
    spec: {
      source: { type: 'Git', git: { repoURL: EXAMPLES, branch: 'master', path: '{{ path }}' } },
      destination: { namespace: 'guestbook', cluster: '{{ name }}' },
      syncPolicy: { automated: true },
      dependsOn: [{ name: '{{ name }}-db' }],
    },
  },
  syncPolicy: { applicationsSync: 'create-update', preserveResourcesOnDeletion: true },
};

beforeAll(async () => {
  kube = connect({ kubeconfigPath: inject('mgmtKubeconfig') });
  await kube.objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});

afterAll(async () => {
  await kube.objects.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns });
});

describe('AppSet CRD on a real apiserver', () => {
  it('accepts an AppSet with every generator under strict validation and keeps it unpruned', async () => {
    // The sample is one the write-time rules accept too (the matrix's gitDirectories gives `path`, gitFiles any key).
    expect(appSetProblems(spec)).toEqual([]);
    const body = { apiVersion: `${APP_GROUP}/${APP_VERSION}`, kind: 'AppSet', metadata: { name: 'guestbook' }, spec };
    const created = await create(body, { fieldValidation: 'Strict' });
    // Unpruned, with the schema's defaults filled in where the sample left them out.
    const merged = structuredClone(spec.generators);
    const children = merged[2]?.merge?.generators ?? [];
    children[0] = { clusters: { includeManagement: false } };
    children[1] = { gitFiles: { ...children[1]?.gitFiles, revision: 'main' } as never };
    expect(created.spec?.['generators']).toEqual(merged);
    expect(created.spec?.['syncPolicy']).toEqual(spec.syncPolicy);
    const template = created.spec?.['template'] as AppSetSpec['template'];
    expect(template.metadata).toEqual(spec.template.metadata);
    expect(template.spec.source.git).toMatchObject({ path: '{{ path }}', manifestType: 'Auto' });
    expect(template.spec.dependsOn).toEqual([{ name: '{{ name }}-db' }]);
  });

  it('defaults the sync policy and refuses a wrongly typed field', async () => {
    const minimal = {
      apiVersion: `${APP_GROUP}/${APP_VERSION}`,
      kind: 'AppSet',
      metadata: { name: 'minimal' },
      spec: { ...spec, syncPolicy: {} },
    };
    const created = await create(minimal, { dryRun: 'All', fieldValidation: 'Strict' });
    expect(created.spec?.['syncPolicy']).toEqual({ applicationsSync: 'sync', preserveResourcesOnDeletion: false });
    const bad = { ...minimal, spec: { ...spec, syncPolicy: { applicationsSync: 'create-delete' } } };
    await expect(create(bad, { dryRun: 'All' })).rejects.toMatchObject({ status: 422 });
  });
});
