import { describe, expect, it } from 'vitest';
import { appSetPayloadOf, appSetUpdateOf } from './appset-manifest.ts';

const generators = [{ list: { elements: [{ env: 'qa' }] } }];
const template = { metadata: { name: 'web-{{ env }}' }, spec: {} };

describe('AppSet text', () => {
  it('maps a manifest to the create payload and leaves a payload as it is', () => {
    const manifest = {
      apiVersion: 'cd.svc.space/v1alpha1',
      kind: 'AppSet',
      metadata: { name: 'web' },
      spec: {
        generators,
        template,
        syncPolicy: { applicationsSync: 'create-only' },
        strategy: { rollingSync: { steps: [] } },
      },
    };
    expect(appSetPayloadOf(manifest)).toEqual({
      name: 'web',
      generators,
      template,
      sync_policy: { applicationsSync: 'create-only' },
      strategy: { rollingSync: { steps: [] } },
    });
    const payload = { name: 'web', generators, template };
    expect(appSetPayloadOf(payload)).toBe(payload);
  });

  it('makes an update of the same text, without a name, and refuses one naming another AppSet', () => {
    expect(appSetUpdateOf({ name: 'web', generators, template }, 'web')).toEqual({ body: { generators, template } });
    expect(appSetUpdateOf({ generators, template }, 'web')).toEqual({ body: { generators, template } });
    expect(appSetUpdateOf({ name: 'api', generators, template }, 'web')).toEqual({
      problem: 'it names AppSet api, not web: an update never renames',
    });
  });
});
