import { describe, expect, it } from 'vitest';
import type { AppResource } from './app-schema.ts';
import { type GeneratorInputs, generateApps, planAppSet, selectDirectories } from './appset-generate.ts';
import type { AppSetResource, AppSetSpec } from './appset-schema.ts';
import { globRegExp } from './glob.ts';

const EXAMPLES = 'https://github.com/argoproj/argocd-example-apps.git';
const DIRS = ['apps', 'guestbook', 'helm-guestbook', 'kustomize-guestbook', 'apps/templates', 'blue-green'];

const inputs: GeneratorInputs = {
  clusters: [
    { name: 'east', labels: { env: 'prod' } },
    { name: 'west', labels: { env: 'prod' } },
    { name: 'lab', labels: { env: 'staging' } },
  ],
  directories: () => DIRS,
  files: () => [
    { path: 'clusters/east/config.json', content: { name: 'east', replicas: '3' } },
    { path: 'clusters/many.yaml', content: [{ name: 'west' }, { name: 'lab' }] },
  ],
};

function appSet(spec: Partial<AppSetSpec>): AppSetResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'AppSet',
    metadata: { name: 'gb', namespace: 'org-acme', uid: 'u-1' },
    spec: {
      generators: [],
      template: {
        metadata: { name: '{{ name }}-guestbook', labels: { env: '{{ metadata.labels.env }}' } },
        spec: {
          source: { type: 'Git', git: { repoURL: EXAMPLES, path: 'guestbook' } },
          destination: { namespace: 'guestbook', cluster: '{{ name }}' },
        },
      },
      ...spec,
    },
  };
}

describe('generateApps', () => {
  it('stamps one App per selected cluster, labelled and owned by the AppSet', () => {
    const { apps, errors } = generateApps(
      appSet({ generators: [{ clusters: { selector: { matchLabels: { env: 'prod' } } } }] }),
      inputs,
    );
    expect(errors).toEqual([]);
    expect(apps.map((a) => a.metadata.name)).toEqual(['east-guestbook', 'west-guestbook']);
    expect(apps[0]?.metadata).toEqual({
      name: 'east-guestbook',
      namespace: 'org-acme',
      labels: { env: 'prod', 'cd.svc.space/appset': 'gb' },
      ownerReferences: [
        { apiVersion: 'cd.svc.space/v1alpha1', kind: 'AppSet', name: 'gb', uid: 'u-1', controller: true },
      ],
    });
    expect(apps[0]?.spec.destination).toEqual({ namespace: 'guestbook', cluster: 'east' });
  });

  it('crosses clusters with the example apps directories in a matrix', () => {
    const set = appSet({
      generators: [
        {
          matrix: {
            generators: [
              { clusters: { selector: { matchLabels: { env: 'staging' } } } },
              {
                gitDirectories: {
                  repoURL: EXAMPLES,
                  directories: [{ path: '*guestbook' }, { path: 'helm-*', exclude: true }],
                },
              },
            ],
          },
        },
      ],
    });
    set.spec.template.metadata.name = '{{ name }}-{{ path.basename }}';
    const { apps, errors } = generateApps(set, inputs);
    expect(errors).toEqual([]);
    expect(apps.map((a) => a.metadata.name)).toEqual(['lab-guestbook', 'lab-kustomize-guestbook']);
  });

  it('reports a set that breaks the template or names an App twice, and generates the rest', () => {
    const set = appSet({
      generators: [
        {
          list: {
            elements: [
              { name: 'a', 'metadata.labels.env': 'x' },
              { name: 'B_bad', 'metadata.labels.env': 'x' },
            ],
          },
        },
        { gitFiles: { repoURL: EXAMPLES, files: [{ path: 'clusters/**' }] } },
      ],
    });
    const { apps, errors } = generateApps(set, inputs);
    expect(apps.map((a) => a.metadata.name)).toEqual(['a-guestbook']);
    expect(errors).toEqual([
      expect.stringMatching(/^generators\[0\]: App "B_bad-guestbook": template\.metadata\.name/),
      'generators[1]: template.metadata.labels.env: this generator gives no parameter metadata.labels.env',
      'generators[1]: template.metadata.labels.env: this generator gives no parameter metadata.labels.env',
      'generators[1]: template.metadata.labels.env: this generator gives no parameter metadata.labels.env',
    ]);
  });

  it('adds the management cluster only when asked and the selector selects all', () => {
    const gen = (matchLabels: Record<string, string>) =>
      generateApps(
        appSet({ generators: [{ clusters: { selector: { matchLabels }, includeManagement: true } }] }),
        inputs,
      );
    expect(gen({}).errors).toEqual([expect.stringMatching(/template\.metadata\.labels\.env/)]);
    expect(gen({ env: 'prod' }).apps).toHaveLength(2);
  });
});

describe('globs', () => {
  it('* stays within a segment, ** crosses them, dots are literal', () => {
    expect(globRegExp('apps/*').test('apps/web')).toBe(true);
    expect(globRegExp('apps/*').test('apps/web/x')).toBe(false);
    expect(globRegExp('apps/**').test('apps/web/x')).toBe(true);
    expect(globRegExp('a.b').test('axb')).toBe(false);
    expect(selectDirectories(DIRS, [{ path: '*' }, { path: 'apps', exclude: true }])).toEqual([
      'guestbook',
      'helm-guestbook',
      'kustomize-guestbook',
      'blue-green',
    ]);
  });
});

describe('planAppSet', () => {
  const set = appSet({ generators: [{ clusters: {} }] });
  const { apps } = generateApps(set, inputs);
  const [east, west, lab] = apps as [AppResource, AppResource, AppResource];
  const stale = { ...west, spec: { ...west.spec, freeze: true } };
  const orphaned = { ...lab, metadata: { ...lab.metadata, name: 'gone-guestbook' } };
  const foreign = { ...lab, metadata: { ...lab.metadata, labels: {} } };

  it('sync creates, updates and deletes; an App not of this AppSet is a conflict', () => {
    const plan = planAppSet(set, apps, [stale, orphaned, foreign]);
    expect(plan.create.map((a) => a.metadata.name)).toEqual(['east-guestbook']);
    expect(plan.update.map((a) => a.metadata.name)).toEqual(['west-guestbook']);
    expect(plan.delete).toEqual(['gone-guestbook']);
    expect(plan.conflicts).toEqual(['App "lab-guestbook" exists and was not generated by this AppSet']);
    expect(planAppSet(set, apps, [east, west, lab])).toEqual({ create: [], update: [], delete: [], conflicts: [] });
  });

  it('create-update never deletes; create-only never updates', () => {
    const policy = (applicationsSync: 'create-only' | 'create-update') => ({
      ...set,
      spec: { ...set.spec, syncPolicy: { applicationsSync } },
    });
    const updating = planAppSet(policy('create-update'), apps, [stale, orphaned]);
    expect([updating.update.length, updating.delete]).toEqual([1, []]);
    const creating = planAppSet(policy('create-only'), apps, [stale, orphaned]);
    expect([creating.create.length, creating.update, creating.delete]).toEqual([2, [], []]);
  });

  it('preserveResourcesOnDeletion gives each App the orphan delete policy; turning it off updates them', () => {
    const preserving = { ...set, spec: { ...set.spec, syncPolicy: { preserveResourcesOnDeletion: true } } };
    const kept = generateApps(preserving, inputs).apps;
    expect(kept[0]?.metadata.annotations).toEqual({ 'cd.svc.space/delete-policy': 'orphan' });
    expect(planAppSet(preserving, kept, apps).update.map((a) => a.metadata.name)).toEqual([
      'east-guestbook',
      'west-guestbook',
      'lab-guestbook',
    ]);
    expect(planAppSet(set, apps, kept).update).toHaveLength(3);
    expect(planAppSet(preserving, kept, kept).update).toEqual([]);
  });

  it('names an App generated twice as an error', () => {
    const twice = appSet({
      generators: [
        { list: { elements: [{ name: 'a', 'metadata.labels.env': 'x' }] } },
        { list: { elements: [{ name: 'a', 'metadata.labels.env': 'y' }] } },
      ],
    });
    expect(generateApps(twice, inputs).errors).toEqual(['generators[1]: App "a-guestbook" is generated twice']);
  });
});
