/**
 * ApplicationSets → svc AppSets against Argo CD's own examples (test/fixtures/import/argocd/appsets, copied from
 * argoproj/argo-cd applicationset/examples; README there): generators field by field, placeholders in svc's syntax,
 * the destination as an svc cluster, and what cannot be generated the same way reported, never dropped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appSetProblems } from '../appset-rules.ts';
import { translatePlaceholders } from './argocd-placeholders.ts';
import { type ImportEntry, type ImportOptions, mapImport, parseImportDocuments } from './index.ts';

const DIR = fileURLToPath(new URL('../../../test/fixtures/import/argocd/', import.meta.url));
const mapOne = (file: string, options: ImportOptions = {}): ImportEntry => {
  const { report } = mapImport(parseImportDocuments(readFileSync(join(DIR, file), 'utf8')), options);
  return report.entries[0] as ImportEntry;
};
const field = (e: ImportEntry, path: string) => e.fields.find((f) => f.field === path);

describe('Argo CD placeholders', () => {
  it('writes fasttemplate and single-parameter Go actions as {{ key }}, and refuses functions', () => {
    expect(translatePlaceholders('{{path.basename}}-{{ name }}', false)).toEqual({
      text: '{{ path.basename }}-{{ name }}',
    });
    expect(translatePlaceholders('{{.path.path}}/{{index .path.segments 1}}/{{- .name -}}', true)).toEqual({
      text: '{{ path }}/{{ path[1] }}/{{ name }}',
    });
    expect(translatePlaceholders('{{ .name | lower }}', true)).toHaveProperty('problem');
    expect(translatePlaceholders('{{ default "x" .name }}', true)).toHaveProperty('problem');
  });
});

describe("Argo CD's ApplicationSet examples", () => {
  it('maps a git directories generator (Go template) to gitDirectories with {{ path }} placeholders', () => {
    const e = mapOne('../argocd-appsets/git-directories-example.yaml');
    expect(e.result).toBe('partial');
    expect(e.becomes).toEqual({ kind: 'AppSet', name: 'cluster-addons' });
    expect(e.appset).toEqual({
      name: 'cluster-addons',
      generators: [
        {
          gitDirectories: {
            repoURL: 'https://github.com/argoproj/argo-cd.git',
            directories: [{ path: 'applicationset/examples/git-generator-directory/cluster-addons/*' }],
          },
        },
      ],
      template: {
        metadata: { name: '{{ path.basename }}' },
        spec: {
          source: { type: 'Git', git: { repoURL: 'https://github.com/argoproj/argo-cd.git', path: '{{ path }}' } },
          destination: { namespace: '{{ path.basename }}', cluster: '' },
          syncPolicy: { automated: false, prune: false, selfHeal: false },
        },
      },
      sync_policy: {},
    });
    expect(field(e, 'spec.generators[0].git.revision')).toMatchObject({ status: 'unsupported' });
    expect(field(e, 'spec.template.spec.project')).toMatchObject({ status: 'unsupported' });
    expect(field(e, 'spec.template.spec.syncPolicy.syncOptions[CreateNamespace=true]')?.status).toBe('equivalent');
    // The same ApplicationSet in fasttemplate mode gives the same AppSet.
    expect(mapOne('../argocd-appsets/git-directories-example-fasttemplate.yaml').appset).toEqual(e.appset);
    expect(appSetProblems({ ...e.appset!, syncPolicy: {} } as never)).toEqual([]);
  });

  it('maps a clusters generator: {{.server}} becomes the svc cluster name, an empty selector includes the management cluster', () => {
    const e = mapOne('../argocd-appsets/cluster-example.yaml');
    expect(e.appset?.generators).toEqual([{ clusters: { includeManagement: true } }]);
    expect(e.appset?.template.spec.destination).toEqual({ namespace: 'guestbook', cluster: '{{ name }}' });
    expect(e.appset?.template.metadata.name).toBe('{{ name }}-guestbook');
    expect(field(e, 'spec.template.spec.destination.server')).toMatchObject({ status: 'mapped' });
  });

  it('maps a matrix of git directories and clusters; the cluster Secret label is every registered cluster', () => {
    const e = mapOne('../argocd-appsets/cluster-and-git.yaml');
    expect(e.appset?.generators[0]?.matrix?.generators).toEqual([
      {
        gitDirectories: {
          repoURL: 'https://github.com/argoproj/argo-cd.git',
          directories: [{ path: 'applicationset/examples/matrix/cluster-addons/*' }],
        },
      },
      { clusters: {} },
    ]);
    expect(e.appset?.template.metadata.name).toBe('{{ path.basename }}-{{ name }}');
    expect(
      field(
        e,
        'spec.generators[0].matrix.generators[1].clusters.selector.matchLabels["argocd.argoproj.io/secret-type"]',
      )?.status,
    ).toBe('equivalent');
  });

  it('maps a git files generator to gitFiles, and a list generator whose url is a server, with create-only', () => {
    expect(mapOne('../argocd-appsets/git-generator-files.yaml').appset?.generators[0]?.gitFiles?.files).toEqual([
      { path: 'applicationset/examples/git-generator-files-discovery/cluster-config/**/config.json' },
    ]);
    const e = mapOne('../argocd-appsets/create-only.yaml');
    expect(e.appset?.generators[0]?.list?.elements).toEqual([
      { cluster: 'engineering-dev', url: '', foo: 'bar' },
      { cluster: 'engineering-prod', url: '', foo: 'baz' },
    ]);
    expect(e.appset?.template.spec.destination.cluster).toBe('{{ url }}');
    expect(e.appset?.template.metadata.labels).toEqual({ foo: '{{ foo }}' });
    expect(e.appset?.sync_policy).toEqual({ applicationsSync: 'create-only' });
  });

  it('writes a list element’s server URL as the registered svc cluster, and refuses an unregistered one', () => {
    const unregistered = mapOne('docs-appset-project.yaml');
    expect(unregistered.result).toBe('unmapped');
    expect(unregistered.reason).toMatch(/https:\/\/1\.2\.3\.4 is not a cluster registered in svc/);
    const e = mapOne('docs-appset-project.yaml', { clusters: { 'https://1.2.3.4': 'dev', 'https://2.4.6.8': 'prod' } });
    expect(e.appset?.generators[0]?.list?.elements.map((x) => x['url'])).toEqual(['dev', 'prod']);
    expect(e.result).toBe('partial');
  });

  it('reports what svc cannot generate the same way, field by field, and maps nothing', () => {
    const cases: [string, RegExp, string][] = [
      ['../argocd-appsets/scm-provider-example.yaml', /scmProvider/, 'spec.generators[0].scmProvider'],
      ['../argocd-appsets/pull-request-example.yaml', /pullRequest/, 'spec.generators[0].pullRequest'],
      [
        '../argocd-appsets/merge-clusters-and-list.yaml',
        /exactly two generators \(found 3\)/,
        'spec.generators[0].merge.generators[0].clusters.values',
      ],
      ['../argocd-appsets/git-files-exclude-example.yaml', /no exclude/, 'spec.generators[0].git.files[exclude]'],
      [
        '../argocd-appsets/template-overrides-example.yaml',
        /per-generator template/,
        'spec.generators[0].list.template',
      ],
    ];
    for (const [file, reason, path] of cases) {
      const e = mapOne(file);
      expect(e.result, file).toBe('unmapped');
      expect(e.reason, file).toMatch(reason);
      expect(e.appset, file).toBeUndefined();
      expect(field(e, path)?.status, file).toBe('unsupported');
    }
    // A Go template function is named with its field.
    expect(mapOne('../argocd-appsets/pull-request-example.yaml').reason).toMatch(
      /spec\.template\.metadata\.labels\.key1: \{\{ index \.labels 0 \}\}/,
    );
  });
});
