/**
 * The HelmChart source driver (src/engine/sources/helm) against real peers: an HTTPS chart repository with basic
 * auth (helm package + helm repo index), charts pushed with `helm push` to the Debian registry with htpasswd, and
 * the run's management plane for Capabilities. The credentials come from the driver's access lookup, as the
 * server's repositories hand them over (the API side is exercised end to end in sources-e2e.test.ts).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { urlCovers } from '../../src/core/repository.ts';
import { HelmChartDriver } from '../../src/engine/sources/index.ts';
import type { SourceAccessRequest } from '../../src/internal/channel.ts';
import { connect, type Discovery, managementSource } from '../../src/kube/index.ts';
import { RegistryClient } from '../../src/registry/index.ts';
import { toolPaths } from '../../src/render/index.ts';
import { DEFAULT_RENDER_LIMITS } from '../../src/render/limits.ts';
import {
  type ChartRepo,
  cacheDir,
  guestbookChart,
  packChart,
  pushChart,
  type Registry,
  startChartRepo,
  startRegistry,
  umbrellaChart,
} from '../harness/index.ts';

const policy = { scope: 'loopback', requireHttps: false } as const;
const CHART_PASSWORD = 'helm-source-chart-password-1';
const OCI_PASSWORD = 'helm-source-oci-password-1';

describe('HelmChart driver against real chart repositories', () => {
  let charts: ChartRepo;
  let elsewhere: ChartRepo;
  let registry: Registry;
  let discovery: Discovery;
  /** Who asked for which credentials. */
  const asked: SourceAccessRequest[] = [];

  beforeAll(async () => {
    [charts, elsewhere, registry] = await Promise.all([
      startChartRepo({ tls: true, basicAuth: { user: 'charts', password: CHART_PASSWORD } }),
      startChartRepo(),
      startRegistry({ htpasswd: { user: 'oci', password: OCI_PASSWORD } }),
    ]);
    discovery = connect(managementSource(inject('mgmtKubeconfig'))).discovery;
  }, 60_000);
  afterAll(async () => {
    await Promise.all([charts?.stop(), elsewhere?.stop(), registry?.stop()]);
  });

  /** The org's repositories as the server would match them: the chart repository and the registry. */
  const access = async (request: SourceAccessRequest) => {
    asked.push(request);
    if (urlCovers(charts.url, request.url)) {
      return {
        repository: 'charts',
        credentials: { username: 'charts', password: CHART_PASSWORD, ca: charts.caPEM ?? '' },
      };
    }
    if (urlCovers(`oci://${registry.host}`, request.url)) {
      return { repository: 'oci', insecure: true, credentials: { username: 'oci', password: OCI_PASSWORD } };
    }
    return undefined;
  };

  function driver(limits = DEFAULT_RENDER_LIMITS) {
    return new HelmChartDriver({
      client: new RegistryClient({ policy }),
      policy,
      access,
      tools: toolPaths(cacheDir()),
      limits,
      maxFetchAgeMs: 60_000,
    });
  }

  function app(helmChart: NonNullable<AppResource['spec']['source']['helmChart']>): AppResource {
    return {
      apiVersion: 'cd.svc.space/v1alpha1',
      kind: 'App',
      metadata: { name: 'gb', namespace: 'org-charts' },
      spec: { source: { type: 'HelmChart', helmChart }, destination: { namespace: 'shop' } },
    };
  }
  const sync = { kind: 'Sync' as const, initiatedAt: new Date().toISOString() };
  const configMap = (objects: { kind: string; metadata: { name: string } }[], name: string) =>
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name) as unknown as {
      data: Record<string, string>;
      metadata: { namespace?: string };
    };

  it('resolves the newest version in a semver range, renders it with values, values files and Capabilities, and follows a new matching version', async () => {
    for (const v of ['1.0.0', '1.2.0', '2.0.0']) await charts.publish('guestbook', guestbookChart(v));
    const d = driver();
    const a = app({
      repoURL: charts.url,
      chart: 'guestbook',
      version: '^1.0.0',
      valuesFiles: ['values-prod.yaml'],
      values: { message: 'from the App' },
    });
    const first = await d.resolve(a, { target: 'head', operation: undefined });
    expect(first.head).toMatch(/^guestbook@1\.2\.0@sha256:[a-f0-9]{64}$/);
    const objects = await d.render(a, first.revision, { discovery });
    const settings = configMap(objects, 'gb-settings');
    expect(settings.data).toMatchObject({ message: 'from the App', chartVersion: '1.2.0', namespace: 'shop' });
    expect(settings.data['kubeVersion']).toMatch(/^v1\.35\./);
    expect(settings.data['svcApps']).toBe('true');
    expect(settings.metadata.namespace).toBe('shop');
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as { spec: { replicas: number } };
    expect(deployment.spec.replicas).toBe(2);
    // Credentials went to the repository's origin only, and were asked for the chart repository.
    expect(charts.requests.filter((r) => !r.authorized)).toEqual([]);
    expect(asked.some((r) => r.type === 'helm' && r.url === charts.url)).toBe(true);

    await charts.publish('guestbook', guestbookChart('1.3.0'));
    await charts.publish('guestbook', guestbookChart('2.1.0'));
    const next = await d.resolve(a, { target: 'head', operation: sync });
    expect(next.head).toMatch(/^guestbook@1\.3\.0@/);
    const exact = await d.resolve(a, { target: 'guestbook@1.0.0', operation: { ...sync, kind: 'Rollback' } });
    expect(exact.revision).toMatch(/^guestbook@1\.0\.0@sha256:/);
  });

  it('resolves and renders an OCI chart pushed with helm push, and a new version in the range', async () => {
    await pushChart(registry, 'charts', guestbookChart('0.1.0'));
    await pushChart(registry, 'charts', guestbookChart('0.2.0'));
    const d = driver();
    const a = app({ repoURL: `oci://${registry.host}/charts`, chart: 'guestbook', version: '~0.1.0' });
    const first = await d.resolve(a, { target: 'head', operation: undefined });
    expect(first.head).toBe(`guestbook@0.1.0@${await registry.resolve('charts/guestbook', '0.1.0')}`);
    const objects = await d.render(a, first.revision, { discovery });
    expect(configMap(objects, 'gb-settings').data['chartVersion']).toBe('0.1.0');
    await pushChart(registry, 'charts', guestbookChart('0.1.1'));
    expect((await d.resolve(a, { target: 'head', operation: sync })).head).toMatch(/^guestbook@0\.1\.1@/);
  });

  it("fetches a chart's missing dependency from its own repository with the org's credentials", async () => {
    await charts.publish(
      'umbrella',
      umbrellaChart('1.0.0', { name: 'guestbook', version: '^1.0.0', repository: charts.url }),
      {
        raw: true,
      },
    );
    const d = driver();
    const a = app({ repoURL: charts.url, chart: 'umbrella', version: '1.0.0' });
    const { revision } = await d.resolve(a, { target: 'head', operation: undefined });
    const objects = await d.render(a, revision, { discovery });
    expect(configMap(objects, 'umbrella-marker')).toBeDefined();
    expect(configMap(objects, 'gb-settings').data).toMatchObject({
      message: 'from the umbrella',
      chartVersion: '1.3.0',
    });
  });

  it('never sends the repository credentials to another host an index points at', async () => {
    const archive = await charts.archive('guestbook-1.2.0.tgz');
    await elsewhere.add('guestbook-1.2.0.tgz', archive);
    const index = (await charts.index()).replaceAll(
      `${charts.url}/guestbook-1.2.0.tgz`,
      `${elsewhere.url.replace('127.0.0.1', 'localhost')}/guestbook-1.2.0.tgz`,
    );
    await charts.writeIndex(index);
    try {
      const d = driver();
      const a = app({ repoURL: charts.url, chart: 'guestbook', version: '1.2.0' });
      const { revision } = await d.resolve(a, { target: 'head', operation: undefined });
      await d.render(a, revision, { discovery });
      const fetched = elsewhere.requests.filter((r) => r.path === '/guestbook-1.2.0.tgz');
      expect(fetched.length).toBeGreaterThan(0);
      expect(fetched.every((r) => !r.authorized)).toBe(true);
    } finally {
      await charts.publish('guestbook', guestbookChart('0.0.1'));
    }
  });

  it('refuses a chart archive with ../ paths or symlinks, an oversized index, and a link-local repository', async () => {
    const d = driver();
    await charts.addUnchecked(
      'evil',
      '1.0.0',
      await packChart(
        'evil',
        { 'Chart.yaml': 'apiVersion: v2\nname: evil\nversion: 1.0.0\n', 'templates/a.yaml': 'x: y\n' },
        [{ name: 'evil/templates/../../../../escape.yaml', type: 'file' }],
      ),
    );
    await charts.addUnchecked(
      'linky',
      '1.0.0',
      await packChart('linky', { 'Chart.yaml': 'apiVersion: v2\nname: linky\nversion: 1.0.0\n' }, [
        {
          name: 'linky/templates/token',
          type: 'symlink',
          linkname: '/var/run/secrets/kubernetes.io/serviceaccount/token',
        },
      ]),
    );
    for (const [chart, message] of [
      ['evil', /leaves the archive/],
      ['linky', /is a symlink/],
    ] as const) {
      const a = app({ repoURL: charts.url, chart, version: '1.0.0' });
      const { revision } = await d.resolve(a, { target: 'head', operation: sync });
      await expect(d.render(a, revision, { discovery })).rejects.toThrow(message);
    }
    const small = driver({ ...DEFAULT_RENDER_LIMITS, maxBytes: 16 * 1024 });
    const padded = `${await charts.index()}\n# ${'x'.repeat(32 * 1024)}\n`;
    await charts.writeIndex(padded);
    await expect(
      small.resolve(app({ repoURL: charts.url, chart: 'guestbook', version: '*' }), {
        target: 'head',
        operation: sync,
      }),
    ).rejects.toThrow(/larger than 16384 bytes \(SVC_RENDER_MAX_MIB\)/);
    await expect(
      d.resolve(app({ repoURL: 'https://169.254.169.254/charts', chart: 'guestbook' }), {
        target: 'head',
        operation: sync,
      }),
    ).rejects.toThrow(/link-local/);
  });
});
