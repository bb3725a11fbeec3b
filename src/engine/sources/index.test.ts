import { describe, expect, it } from 'vitest';
import type { AppResource } from '../../core/app-schema.ts';
import { DEPLOYABLE_SOURCE_TYPES } from '../../core/app-state.ts';
import { InputError } from '../../core/errors.ts';
import { RepoCache } from '../../git/index.ts';
import { RegistryClient } from '../../registry/index.ts';
import { driverFor, freshness, GitDriver, gitSourceOf, HelmChartDriver, ImageDriver, sourceDrivers } from './index.ts';

const client = new RegistryClient({ policy: { scope: 'loopback', requireHttps: false } });
const drivers = sourceDrivers({
  git: { repos: new RepoCache({ dir: '/nonexistent' }), maxFetchAgeMs: 15_000 },
  image: { client, registry: async () => ({ host: 'registry.example.com' }) },
  helmChart: { client, policy: { scope: 'loopback', requireHttps: false }, maxFetchAgeMs: 15_000 },
});

function app(source: AppResource['spec']['source']): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'a', namespace: 'org-x' },
    spec: { source, destination: { namespace: 'd' } },
  };
}

describe('source driver registry', () => {
  it('has a driver for exactly the deployable source types of the state module', () => {
    expect(Object.keys(drivers).sort()).toEqual([...DEPLOYABLE_SOURCE_TYPES].sort());
    expect(drivers.Git).toBeInstanceOf(GitDriver);
    expect(drivers.Image).toBeInstanceOf(ImageDriver);
    expect(drivers.HelmChart).toBeInstanceOf(HelmChartDriver);
  });

  it('answers the driver of the App type, and a stall for a type without one', () => {
    expect(driverFor(drivers, app({ type: 'Git', git: { repoURL: 'https://h/r.git' } }))).toBe(drivers.Git);
    expect(driverFor(drivers, app({ type: 'Image', image: { repository: 'r', tag: 't' } }))).toBe(drivers.Image);
    for (const [type, message] of [['Svn', 'source.type must be one of Git, Image, HelmChart, Catalog']] as const) {
      const err = (() => {
        try {
          driverFor(drivers, app({ type } as unknown as Parameters<typeof app>[0]));
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).retry).toBe('stall');
      expect((err as Error).message).toBe(message);
    }
  });
});

describe('gitSourceOf', () => {
  it('refuses a missing block and local repository URLs as stalls', () => {
    expect(() => gitSourceOf(app({ type: 'Git' }))).toThrow('spec.source.git is required');
    for (const repoURL of ['file:///etc', '/srv/r.git']) {
      expect(() => gitSourceOf(app({ type: 'Git', git: { repoURL } }))).toThrow(
        'spec.source.git.repoURL must be an http(s), ssh or git URL',
      );
    }
  });
});

describe('freshness', () => {
  const at = '2026-11-21T05:00:00.000Z';
  it('reuses a young fetch without an operation, fetches anew for an operation, and shares one fetch per push', () => {
    expect(freshness(undefined, 15_000)).toEqual({ maxAgeMs: 15_000 });
    expect(freshness({ kind: 'Sync', initiatedAt: at, id: 'a', triggeredBy: 'user:dev' }, 15_000)).toEqual({
      maxAgeMs: 0,
    });
    expect(freshness({ kind: 'Sync', initiatedAt: at, id: 'b', triggeredBy: 'webhook:gitA' }, 15_000)).toEqual({
      startedAfter: Date.parse(at),
    });
  });
});
