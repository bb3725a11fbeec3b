import { describe, expect, it } from 'vitest';
import type { AppResource } from '../../core/app-schema.ts';
import { appsTargeting, deploymentCounts } from './deployments.ts';

const app = (name: string, cluster: string, namespace: string, health?: string) =>
  ({
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name, namespace: 'org-a' },
    spec: { source: { type: 'Git' }, destination: { cluster, namespace } },
    ...(health ? { status: { healthStatus: health } } : {}),
  }) as unknown as AppResource;

describe('deploymentCounts', () => {
  it('groups Apps by destination namespace; a group is healthy when every App is', () => {
    const apps = [
      app('a', 'east', 'shop', 'Healthy'),
      app('b', 'east', 'shop', 'Degraded'),
      app('c', 'east', 'blog', 'Healthy'),
      app('d', 'east', 'new'),
      app('e', 'west', 'shop', 'Healthy'),
    ];
    expect(deploymentCounts(apps, 'east')).toEqual({ deploymentCount: 3, healthyDeployments: 1 });
    expect(deploymentCounts(apps, 'west')).toEqual({ deploymentCount: 1, healthyDeployments: 1 });
    expect(deploymentCounts(apps, 'north')).toEqual({ deploymentCount: 0, healthyDeployments: 0 });
    expect(appsTargeting(apps, 'west').map((a) => a.metadata.name)).toEqual(['e']);
  });
});
