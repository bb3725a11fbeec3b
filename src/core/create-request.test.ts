import { describe, expect, it } from 'vitest';
import { parseCreateRequest } from './create-request.ts';
import { InputError } from './errors.ts';

const git = { type: 'Git', git: { repoURL: 'https://git.example.com/org/app.git' } };
const image = { type: 'Image', image: { repository: 'registry.example.com/team/web', tag: '1.2.3' } };

function rejection(body: unknown): string {
  try {
    parseCreateRequest(body);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as Error).message;
  }
  throw new Error('expected the request to be rejected');
}

describe('parseCreateRequest (contract §4.2 create rules)', () => {
  it('accepts a Git app and fills the schema defaults', () => {
    const req = parseCreateRequest({ name: 'web', namespace: 'shop', source: git, sync_policy: { automated: true } });
    expect(req).toMatchObject({ name: 'web', namespace: 'shop', cluster: '' });
    expect(req.spec.source.git).toEqual({
      repoURL: 'https://git.example.com/org/app.git',
      branch: 'main',
      path: '.',
      manifestType: 'Auto',
    });
    expect(req.spec.destination).toEqual({ namespace: 'shop', cluster: '' });
    expect(req.spec.syncPolicy).toEqual({ automated: true, prune: false, selfHeal: false, requiresApproval: false });
    expect(req.spec.freeze).toBe(false);
  });

  it('accepts a registered cluster name', () => {
    const req = parseCreateRequest({ name: 'api-1', namespace: 'prod', cluster: 'edge-eu', source: git });
    expect(req.cluster).toBe('edge-eu');
    expect(req.spec.destination.cluster).toBe('edge-eu');
  });

  it('accepts an Image source and fills its defaults', () => {
    const req = parseCreateRequest({ name: 'web', namespace: 'shop', source: image });
    expect(req.spec.source.image).toMatchObject({ repository: 'registry.example.com/team/web', tag: '1.2.3' });
    expect(req.spec.source.image?.tagPolicy).toBe('Pinned');
    const relative = parseCreateRequest({
      name: 'web',
      namespace: 'shop',
      source: { type: 'Image', image: { registryRef: 'hub', repository: 'team/web', tag: 'sha256:'.padEnd(71, 'a') } },
    });
    expect(relative.spec.source.image?.registryRef).toBe('hub');
  });

  it.each([
    [{}, 'source.image.repository is required'],
    [{ repository: 'registry.example.com/Team/web', tag: '1' }, 'source.image.repository must be an image repository'],
    [{ repository: 'https://registry.example.com/web', tag: '1' }, 'source.image.repository must be an image'],
    [{ registryRef: 'hub', repository: 'registry.example.com/web:1', tag: '1' }, 'relative to the registry'],
    [{ registryRef: 'Hub!', repository: 'team/web', tag: '1' }, 'source.image.registryRef must name a registry'],
    [{ repository: 'team/web', tag: 'a b' }, 'source.image.tag must be a tag'],
    [{ repository: 'team/web', tag: '1', ingress: { enabled: true } }, 'source.image.ingress.host must be a DNS name'],
    [
      { repository: 'team/web', tag: '1', autoscaling: { enabled: true, min: 5, max: 2 } },
      'autoscaling.min must not exceed',
    ],
    [
      {
        repository: 'team/web',
        tag: '1',
        workload: { env: [{ name: 'A', value: 'x', secretRef: { name: 's', key: 'k' } }] },
      },
      'env[0] must set exactly one of value, secretRef, store',
    ],
  ])('rejects the image block %j', (block, reason) => {
    expect(rejection({ name: 'web', namespace: 'shop', source: { type: 'Image', image: block } })).toContain(reason);
  });

  it.each([
    ['Web', 'name "Web" must be a DNS-1123 label'],
    ['-web', 'name "-web" must be a DNS-1123 label'],
    ['web_1', 'name "web_1" must be a DNS-1123 label'],
    ['a'.repeat(64), 'name must be at most 63 characters'],
    ['', 'name is required'],
  ])('rejects the name %j', (name, reason) => {
    expect(rejection({ name, namespace: 'shop', source: git })).toContain(reason);
  });

  it('rejects a bad namespace and a bad cluster name', () => {
    expect(rejection({ name: 'web', namespace: 'Shop', source: git })).toContain('namespace "Shop" must be a DNS-1123');
    expect(rejection({ name: 'web', namespace: 'shop', cluster: 'EU', source: git })).toContain(
      'cluster "EU" must be a DNS-1123',
    );
  });

  it('requires the source block matching source.type, and only that one', () => {
    expect(rejection({ name: 'web', namespace: 'shop', source: { type: 'Git' } })).toContain(
      'source.git is required when source.type is Git',
    );
    expect(rejection({ name: 'web', namespace: 'shop', source: { ...git, image: image.image } })).toContain(
      'source.image must not be set when source.type is Git',
    );
  });

  it('requires git.repoURL for Git', () => {
    expect(rejection({ name: 'web', namespace: 'shop', source: { type: 'Git', git: { branch: 'dev' } } })).toContain(
      'source.git.repoURL is required',
    );
  });

  it.each([
    'file:///etc',
    '/srv/repos/app.git',
    './app',
    'ext::sh -c touch% /tmp/pwned',
    '--upload-pack=touch /tmp/x',
    '-oProxyCommand=x@host:repo',
    'https:///no-host',
  ])('rejects the repository URL %j (not a remote http(s), ssh or git URL)', (repoURL) => {
    expect(rejection({ name: 'web', namespace: 'shop', source: { type: 'Git', git: { repoURL } } })).toContain(
      'source.git.repoURL must be an http(s), ssh or git URL',
    );
  });

  it('accepts a HelmChart source with a version range, and refuses what helm or the fetcher could misread', () => {
    const helmChart = {
      type: 'HelmChart',
      helmChart: { repoURL: 'oci://charts.example.com/team', chart: 'web', version: '^1.2.0', values: { a: { b: 1 } } },
    };
    const parsed = parseCreateRequest({ name: 'web', namespace: 'shop', source: helmChart });
    expect(parsed.spec.source.helmChart).toMatchObject({ chart: 'web', version: '^1.2.0', values: { a: { b: 1 } } });
    const bad = {
      type: 'HelmChart',
      helmChart: {
        repoURL: 'https://user:pw@charts.example.com',
        chart: '-x',
        version: 'newest',
        valuesFiles: ['../../etc/passwd', '-f'],
        releaseName: 'Bad_Name',
      },
    };
    const message = rejection({ name: 'web', namespace: 'shop', source: bad });
    for (const part of [
      'source.helmChart.repoURL must not carry a user name or password',
      'source.helmChart.chart must be a chart name',
      'source.helmChart.version must be an exact version (1.2.3) or a semver range',
      'source.helmChart.valuesFiles entry must not leave the chart (..)',
      'source.helmChart.valuesFiles entry must be a path inside the chart',
      'source.helmChart.releaseName must be a Helm release name',
    ]) {
      expect(message).toContain(part);
    }
    expect(message).not.toContain('pw@');
    expect(
      rejection({
        name: 'web',
        namespace: 'shop',
        source: { type: 'HelmChart', helmChart: { repoURL: 'file:///x', chart: 'c' } },
      }),
    ).toContain('source.helmChart.repoURL must be an https://, http:// or oci:// URL');
  });

  it('accepts a Catalog source (its template is checked by the API), rejects unknown types', () => {
    const parsed = parseCreateRequest({
      name: 'web',
      namespace: 'shop',
      source: { type: 'Catalog', catalog: { template: 't', params: { replicas: '2' } } },
    });
    expect(parsed.spec.source).toEqual({ type: 'Catalog', catalog: { template: 't', params: { replicas: '2' } } });
    expect(rejection({ name: 'web', namespace: 'shop', source: { type: 'Catalog' } })).toContain(
      'source.catalog is required when source.type is Catalog',
    );
    expect(rejection({ name: 'web', namespace: 'shop', source: { type: 'Svn' } })).toContain(
      'source.type must be one of Git, Image, HelmChart, Catalog',
    );
  });

  it('rejects unknown fields and wrong types with their path', () => {
    expect(rejection({ name: 'web', namespace: 'shop', source: git, owner: 'me' })).toContain('unknown field "owner"');
    const nested = { type: 'Git', git: { repoURL: 'https://h/r.git', branch: 3, colour: 'red' } };
    const msg = rejection({ name: 'web', namespace: 'shop', source: nested, sync_policy: { prune: 'yes' } });
    expect(msg).toContain('source.git.branch must be string');
    expect(msg).toContain('source.git has unknown field "colour"');
    expect(msg).toContain('sync_policy.prune must be boolean');
  });

  it('accepts ignore_differences as spec.ignoreDifferences, and names a bad rule by its API path', () => {
    const rules = [{ group: 'apps', kind: 'Deployment', managedFieldsManagers: ['kube-controller-manager'] }];
    const req = parseCreateRequest({ name: 'web', namespace: 'shop', source: git, ignore_differences: rules });
    expect(req.spec.ignoreDifferences).toEqual(rules);
    const bad = rejection({
      name: 'web',
      namespace: 'shop',
      source: git,
      ignore_differences: [{ kind: 'ConfigMap', jsonPointers: ['data/v'] }],
    });
    expect(bad).toMatch(/^ignore_differences/);
  });

  it('rejects a body that is not an object', () => {
    expect(rejection(null)).toBe('request body must be a JSON object');
    expect(rejection([1])).toBe('request body must be a JSON object');
  });
});

describe('create request: delivery windows', () => {
  it('refuses windows the schema admits but that cannot be evaluated, naming them', () => {
    const body = {
      name: 'web',
      namespace: 'prod',
      source: { type: 'Git', git: { repoURL: 'https://git.example.test/r.git' } },
      sync_policy: {
        windows: [{ name: 'w', kind: 'deny', schedule: '0 9 * * *', duration: '1h', timeZone: 'Nowhere/X' }],
      },
    };
    expect(() => parseCreateRequest(body)).toThrow(
      /sync_policy\.windows: window 0 \(w\): unknown time zone "Nowhere\/X"/,
    );
  });
});
