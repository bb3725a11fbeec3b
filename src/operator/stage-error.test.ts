import { describe, expect, it } from 'vitest';
import { InputError, UpstreamError } from '../core/errors.ts';
import { GitFetchError, GitPathError, GitRefError } from '../git/index.ts';
import { hintOf, isUnreachable, KubeApiError } from '../kube/index.ts';
import { ManifestError } from '../render/index.ts';
import { FencedError } from './fence.ts';
import { inStage, StageError } from './stage-error.ts';

describe('hintOf', () => {
  it('takes the hint errors carry: spec problems stall, upstream fixes wait, outages retry', () => {
    expect(hintOf(new InputError('bad spec'))).toBe('stall');
    expect(hintOf(new GitPathError('path "x" does not exist in the repository'))).toBe('stall');
    expect(hintOf(new GitRefError('branch "x" not found'))).toBe('wait');
    expect(hintOf(new ManifestError('m/a.yaml', 'invalid YAML'))).toBe('wait');
    expect(hintOf(new GitFetchError('cannot fetch'))).toBe('retry');
    expect(hintOf(new UpstreamError('registry down'))).toBe('retry');
    expect(hintOf(new Error('socket hang up'))).toBe('retry');
  });

  it('reads Kubernetes API failures by status: unreachable, throttled and server errors retry, refusals wait', () => {
    for (const status of [0, 408, 429, 500, 503])
      expect(hintOf(new KubeApiError(status, '', 'x')), `${status}`).toBe('retry');
    for (const status of [400, 403, 404, 422])
      expect(hintOf(new KubeApiError(status, '', 'x')), `${status}`).toBe('wait');
  });
});

describe('inStage', () => {
  it('wraps a failure in a StageError of its stage with the cause message and hint', async () => {
    const err = await inStage('render', () => {
      throw new ManifestError('m/a.yaml', 'invalid YAML');
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StageError);
    expect(err).toMatchObject({ stage: 'render', retry: 'wait', message: 'm/a.yaml: invalid YAML' });
  });

  it('never stalls the inventory stage (a failed migration LIST is retried), whatever its cause says', async () => {
    const err = await inStage('inventory', () => Promise.reject(new InputError('bad'))).catch((e: unknown) => e);
    expect(err).toMatchObject({ stage: 'inventory', retry: 'wait' });
    const outage = await inStage('inventory', () => Promise.reject(new KubeApiError(503, '', 'x'))).catch((e) => e);
    expect(outage).toMatchObject({ stage: 'inventory', retry: 'retry' });
    expect(new StageError('render', new InputError('bad')).retry).toBe('stall');
  });

  it('keeps the stage of a StageError from deeper, lets FencedError through, and returns values', async () => {
    const inner = new StageError('apply', new Error('x'));
    await expect(inStage('source', () => Promise.reject(inner))).rejects.toBe(inner);
    const fenced = new FencedError();
    await expect(inStage('apply', () => Promise.reject(fenced))).rejects.toBe(fenced);
    expect(await inStage('health', async () => 42)).toBe(42);
  });
});

describe('isUnreachable', () => {
  it('finds a cluster that did not answer anywhere along the cause chain, and only that', () => {
    const silent = new KubeApiError(0, 'Unreachable', 'GET /version: connect ECONNREFUSED');
    expect(isUnreachable(silent)).toBe(true);
    expect(isUnreachable(new StageError('apply', new UpstreamError('wrapped', { cause: silent })))).toBe(true);
    expect(isUnreachable(new StageError('apply', new KubeApiError(401, 'Unauthorized', 'x')))).toBe(false);
    expect(isUnreachable(new Error('other'))).toBe(false);
  });
});
