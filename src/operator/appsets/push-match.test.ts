import { describe, expect, it } from 'vitest';
import type { AppSetResource, AppSetSpec } from '../../core/appset-schema.ts';
import type { PushEvent } from '../webhook/push.ts';
import { appSetMatchesPush, appSetPushSecret } from './push-match.ts';

const URL = 'https://git.example.test/apps.git';
const push = (ref = 'refs/heads/main', urls = [URL]): PushEvent => ({
  urls,
  ref,
  after: 'a'.repeat(40),
  pusher: 'dev',
});
const dirs = (revision?: string) => ({
  gitDirectories: { repoURL: URL, ...(revision ? { revision } : {}), directories: [{ path: '*' }] },
});
const list = { list: { elements: [{ a: '1' }] } };

const set = (generators: AppSetSpec['generators'], webhook?: { enabled?: boolean; secretRef?: string }) =>
  ({
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'AppSet',
    metadata: { name: 'x', namespace: 'org-acme' },
    spec: {
      generators,
      template: {
        metadata: { name: 'a-{{ path.basename }}' },
        spec: { source: { type: 'Git' }, destination: { namespace: 'n' }, ...(webhook ? { webhook } : {}) },
      },
    },
  }) as AppSetResource;

describe('AppSets a push concerns', () => {
  it('matches a Git generator on the pushed repository and branch, inside matrix and merge too', () => {
    expect(appSetMatchesPush(set([dirs()], { enabled: true }), push())).toBe(true);
    expect(
      appSetMatchesPush(
        set([{ matrix: { generators: [list, dirs('dev')] } }], { enabled: true }),
        push('refs/heads/dev'),
      ),
    ).toBe(true);
    const files = { gitFiles: { repoURL: URL, files: [{ path: '*.yaml' }] } };
    expect(
      appSetMatchesPush(set([{ merge: { mergeKeys: ['a'], generators: [list, files] } }], { enabled: true }), push()),
    ).toBe(true);
  });

  it('does not match another branch, another URL (exactly as an App), a list alone, or a template not opted in', () => {
    expect(appSetMatchesPush(set([dirs()], { enabled: true }), push('refs/heads/dev'))).toBe(false);
    expect(appSetMatchesPush(set([dirs()], { enabled: true }), push('refs/tags/main'))).toBe(false);
    expect(
      appSetMatchesPush(set([dirs()], { enabled: true }), push('refs/heads/main', [URL.replace(/\.git$/, '')])),
    ).toBe(false);
    expect(appSetMatchesPush(set([list], { enabled: true }), push())).toBe(false);
    expect(appSetMatchesPush(set([dirs()]), push())).toBe(false);
    expect(appSetMatchesPush(set([dirs()], { enabled: false }), push())).toBe(false);
  });

  it("verifies with the template's Secret; one named from parameters cannot be verified", () => {
    expect(appSetPushSecret(set([dirs()], { enabled: true }))).toEqual({ unverifiable: false });
    expect(appSetPushSecret(set([dirs()], { enabled: true, secretRef: 'hook' }))).toEqual({
      name: 'hook',
      unverifiable: false,
    });
    expect(appSetPushSecret(set([dirs()], { enabled: true, secretRef: 'hook-{{ path.basename }}' }))).toEqual({
      unverifiable: true,
    });
  });
});
