import { describe, expect, it } from 'vitest';
import { type CatalogTemplateVersion, checkedParams, instantiate, templateSpecProblems } from './catalog.ts';
import { catalogRevision, parseCatalogRevision } from './catalog-revision.ts';
import { InputError } from './errors.ts';

const chart: CatalogTemplateVersion = {
  name: 'web',
  version: 2,
  source: {
    type: 'HelmChart',
    helmChart: {
      repoURL: 'https://charts.example.com',
      chart: 'guestbook',
      version: '1.x',
      values: { replicas: '{{ replicas }}', message: 'hello {{ who }}', nested: { on: '{{ debug }}' } },
    },
  },
  paramsSchema: {
    type: 'object',
    properties: {
      replicas: { type: 'integer', minimum: 1, maximum: 5, default: 1 },
      who: { type: 'string', enum: ['team', 'world'] },
      debug: { type: 'boolean', default: false },
    },
    required: ['who'],
  },
};

describe('catalog templates', () => {
  it('fills params into Helm values, keeping the type of a whole-value placeholder', () => {
    const source = instantiate(chart, { replicas: '3', who: 'world', debug: 'true' });
    expect(source).toEqual({
      type: 'HelmChart',
      helmChart: {
        repoURL: 'https://charts.example.com',
        chart: 'guestbook',
        version: '1.x',
        values: { replicas: 3, message: 'hello world', nested: { on: true } },
      },
    });
    // Defaults fill what the App leaves out.
    expect(instantiate(chart, { who: 'team' })).toMatchObject({
      helmChart: { values: { replicas: 1, nested: { on: false } } },
    });
  });

  it("refuses params the schema refuses, with the schema's messages", () => {
    expect(() => checkedParams(chart.paramsSchema, { who: 'world', replicas: 'many' })).toThrow(
      /params\.replicas must be integer/,
    );
    expect(() => checkedParams(chart.paramsSchema, { who: 'world', replicas: '9' })).toThrow(
      /params\.replicas must be <= 5/,
    );
    expect(() => checkedParams(chart.paramsSchema, {})).toThrow(/params\.who is required/);
    expect(() => checkedParams(chart.paramsSchema, { who: 'x' })).toThrow(/params\.who must be one of team, world/);
    expect(() => checkedParams(chart.paramsSchema, { who: 'team', extra: '1' })).toThrow(
      /params has unknown field "extra"/,
    );
    expect(() => instantiate(chart, {})).toThrow(InputError);
  });

  it('fills Git sources as text: substitution variables reach raw manifests', () => {
    const git: CatalogTemplateVersion = {
      name: 'raw',
      version: 1,
      source: {
        type: 'Git',
        git: {
          repoURL: 'https://git.example.com/r.git',
          path: 'apps/{{ app }}',
          substitution: { REPLICAS: '{{ n }}' },
        },
      },
      paramsSchema: { type: 'object', properties: { app: { type: 'string' }, n: { type: 'integer', default: 2 } } },
    };
    expect(instantiate(git, { app: 'api' })).toEqual({
      type: 'Git',
      git: { repoURL: 'https://git.example.com/r.git', path: 'apps/api', substitution: { REPLICAS: '2' } },
    });
  });

  it('checks a template: param names, defaults, required, placeholders, patterns', () => {
    const bad = templateSpecProblems({
      name: 'bad',
      source: {
        type: 'Git',
        git: { repoURL: 'https://git.example.com/r.git', path: '{{ nope }}/{{ ok-name }}', branch: '{{x' },
      },
      paramsSchema: {
        type: 'object',
        properties: {
          'ok-name': { type: 'string' },
          n: { type: 'integer', default: 'three' },
          p: { type: 'string', pattern: '(' },
        },
        required: ['missing'],
      },
    });
    expect(bad.join('\n')).toMatch(/param name "ok-name" must match/);
    expect(bad.join('\n')).toMatch(/params_schema\.properties\.n\.default must be integer/);
    expect(bad.join('\n')).toMatch(/params_schema\.required: "missing" is not a declared param/);
    expect(bad.join('\n')).toMatch(/source\.git\.path: unknown placeholder \{\{ nope \}\}: no param of params_schema/);
    expect(bad.join('\n')).toMatch(/source\.git\.branch: "\{\{" must start a placeholder/);
    expect(bad.join('\n')).toMatch(/params_schema: Invalid regular expression/);
    expect(templateSpecProblems(chart)).toEqual([]);
  });

  it('reports a param schema ajv cannot compile, with a default, as a problem rather than throwing', () => {
    const problems = templateSpecProblems({
      ...chart,
      paramsSchema: { type: 'object', properties: { env: { type: 'string', enum: ['a', 'a'], default: 'a' } } },
    });
    expect(problems.join('\n')).toMatch(/params_schema: schema is invalid: .*enum must NOT have duplicate items/);
  });

  it('writes and reads revisions naming the template version', () => {
    const r = catalogRevision('web', 3, 'guestbook@1.2.0@sha256:abc');
    expect(r).toBe('web@v3/guestbook@1.2.0@sha256:abc');
    expect(parseCatalogRevision(r)).toEqual({ template: 'web', version: 3, inner: 'guestbook@1.2.0@sha256:abc' });
    expect(parseCatalogRevision('0123abcd')).toBeUndefined();
    expect(parseCatalogRevision('web@v0/x')).toBeUndefined();
  });
});
