import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { AppResource } from '../../core/app-schema.ts';
import { APP_OBJECT_COMPONENTS } from './contract.ts';
import { appView } from './view.ts';
import { appJson, appListJson } from './view-json.ts';

const apps: AppResource[] = [
  {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'bare', creationTimestamp: '2026-11-21T05:00:00Z' },
    spec: { source: { type: 'Git', git: { repoURL: 'https://g/x.git' } }, destination: { namespace: 'web' } },
  },
  {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'full "quoted" \u00e9', creationTimestamp: '2026-11-21T05:00:00Z' },
    spec: {
      source: { type: 'Image', image: { repository: 'r.example/a', tag: '1.0', workload: { replicas: 2 } } },
      destination: { namespace: 'api', cluster: 'east' },
      syncPolicy: { automated: true, prune: true },
      freeze: true,
    },
    status: {
      syncStatus: 'Synced',
      healthStatus: 'Degraded',
      healthReason: 'Deployment api: 0/2 ready\nline two',
      revision: 'sha256:abc',
      url: 'https://api.example',
      resources: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'api',
          namespace: 'api',
          syncStatus: 'Synced',
          healthStatus: 'Degraded',
        },
      ],
      conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-11-21T06:00:00Z', message: 'x' }],
    },
  } as AppResource,
];

describe('app JSON', () => {
  it('is byte for byte what Fastify sends for the GET /apps response schema', async () => {
    const app = Fastify();
    for (const component of APP_OBJECT_COMPONENTS) app.addSchema(component);
    const schema = {
      response: { 200: { type: 'object', properties: { apps: { type: 'array', items: { $ref: 'App' } } } } },
    };
    app.get('/by-schema', { schema }, async () => ({ apps: apps.map(appView) }));
    app.get('/cached', { schema }, async (_req, reply) =>
      reply.type('application/json; charset=utf-8').send(appListJson(apps.map((a) => appJson(appView(a))))),
    );
    const a = await app.inject('/by-schema');
    const b = await app.inject('/cached');
    expect(b.body).toBe(a.body);
    expect(b.headers['content-type']).toBe(a.headers['content-type']);
    expect(JSON.parse(b.body).apps).toHaveLength(2);
    await app.close();
  });

  it('serializes an empty list like Fastify', () => {
    expect(appListJson([]).toString()).toBe('{"apps":[]}');
  });
});
