import { describe, expect, it } from 'vitest';
import { parseCreateRequest } from './create-request.ts';
import { gitArgProblems } from './git-source-args.ts';

const REPO = 'https://git.example.com/team/app.git';
const problemsOf = (git: Record<string, unknown>) => gitArgProblems({ repoURL: REPO, ...git }, 'source.git');

describe('argument injection through Git source fields (issue 17)', () => {
  it('CVE-2017-1000117 (ssh -oProxyCommand) and git --upload-pack=: repoURLs a tool could read as an option are refused', () => {
    for (const repoURL of [
      '--upload-pack=touch /tmp/pwned',
      '-c core.sshCommand=touch /tmp/pwned',
      'ssh://-oProxyCommand=touch%20pwned/repo',
      'ssh://git@-oProxyCommand=touch%20pwned/repo',
      'git@-oProxyCommand=x:repo',
      'ext::sh -c touch% /tmp/pwned',
      'file:///etc',
      'https://host/repo;touch /tmp/pwned',
      'https://host/repo\n--upload-pack=x',
    ]) {
      expect(gitArgProblems({ repoURL }, 'source.git'), repoURL).toEqual([
        'source.git.repoURL must be an http(s), ssh or git URL',
      ]);
    }
    for (const repoURL of [
      REPO,
      'ssh://git@host:2222/team/app.git',
      'git@github.com:team/app.git',
      'https://u:p@h/r',
    ]) {
      expect(gitArgProblems({ repoURL }, 'source.git'), repoURL).toEqual([]);
    }
  });

  it('refs: a branch with a leading dash, whitespace or shell metacharacters is refused', () => {
    for (const branch of ['--upload-pack=x', '-b', 'main;touch x', 'a b', 'main$(id)', 'x\n-y']) {
      expect(problemsOf({ branch }), branch).toEqual([
        'source.git.branch must be a branch name (letters, digits, . _ / + @ -; not starting with -)',
      ]);
    }
    for (const branch of ['main', 'release/1.2', 'feature/x-y_z', 'v1.0+build'])
      expect(problemsOf({ branch })).toEqual([]);
  });

  it('paths and Helm values files: a leading dash or a control character is refused', () => {
    expect(problemsOf({ path: '--output=/etc' })).toEqual([
      'source.git.path must not start with - or contain control characters',
    ]);
    expect(problemsOf({ helm: { valuesFile: '-f/etc/passwd' } })).toEqual([
      'source.git.helm.valuesFile must not start with - or contain control characters',
    ]);
    expect(problemsOf({ path: 'deploy/prod', helm: { valuesFile: 'values-prod.yaml' } })).toEqual([]);
  });

  it('GHSA-fw5c-w8rc-j7fx class: Helm release names, namespaces and value keys shaped like flags are refused', () => {
    expect(
      problemsOf({
        helm: {
          releaseName: '--post-renderer=/bin/sh',
          namespace: '--kube-context=prod',
          inlineValues: { '--set': 'x', 'image.tag': 'v1', 'a[0].b': 'c' },
        },
      }),
    ).toEqual([
      'source.git.helm.releaseName must be a Helm release name (DNS-1123, at most 53)',
      'source.git.helm.namespace must be a namespace name (DNS-1123 label)',
      'source.git.helm.inlineValues key "--set" is not a value path',
    ]);
    expect(problemsOf({ helm: { releaseName: 'a'.repeat(54) } })).toEqual([
      'source.git.helm.releaseName must be at most 53 characters',
    ]);
    expect(problemsOf({ helm: { releaseName: 'web.prod', namespace: 'team-a' } })).toEqual([]);
  });

  it('kustomize options: images, name prefixes and components shaped like flags are refused', () => {
    expect(
      problemsOf({
        kustomize: { images: ['--help', 'web=-x', 'a b'], namePrefix: '--stack-trace', components: ['-c'] },
      }),
    ).toEqual([
      'source.git.kustomize.images entry "--help" must be name[=newName[:tag]] without -',
      'source.git.kustomize.images entry "web=-x" must be name[=newName[:tag]] without -',
      'source.git.kustomize.images entry "a b" must be name[=newName[:tag]] without -',
      'source.git.kustomize.namePrefix must be lower-case letters, digits, - and .',
      'source.git.kustomize.components entry "-c" must not start with -',
    ]);
    expect(
      problemsOf({
        kustomize: {
          images: ['web=registry.example.com/web:2', 'api:1.2', 'db@sha256:abc'],
          namePrefix: 'prod-',
          components: ['../c'],
        },
      }),
    ).toEqual([]);
  });

  it('create refuses them with every problem listed (the API answers 400), prefixed as the payload names them', () => {
    expect(() =>
      parseCreateRequest({
        name: 'web',
        namespace: 'web',
        source: { type: 'Git', git: { repoURL: REPO, branch: '--upload-pack=x', helm: { releaseName: '-x' } } },
      }),
    ).toThrow(
      'source.git.branch must be a branch name (letters, digits, . _ / + @ -; not starting with -); source.git.helm.releaseName must be a Helm release name (DNS-1123, at most 53)',
    );
  });
});
