import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  httpStatusOf,
  InputError,
  NotFoundError,
  UnavailableError,
  UpstreamError,
} from '../core/errors.ts';
import { CredentialError, KubeApiError, KubeconfigError, toSvcError } from './errors.ts';

const api = (status: number, detail: string) =>
  new KubeApiError(status, 'Reason', `GET /x: ${status} ${detail}`, { detail });

describe('toSvcError', () => {
  it('maps 404 to NotFoundError, 409 to ConflictError with the apiserver message', () => {
    const nf = toSvcError(api(404, 'apps "web" not found'), 'app web');
    expect(nf).toBeInstanceOf(NotFoundError);
    expect(nf.message).toBe('app web not found');
    const c = toSvcError(api(409, 'the object has been modified'), 'app web');
    expect(c).toBeInstanceOf(ConflictError);
    expect(c.message).toBe('app web: the object has been modified');
    expect(c.cause).toBeInstanceOf(KubeApiError);
  });

  it('maps an unreachable server to UnavailableError and other statuses to UpstreamError', () => {
    const down = toSvcError(
      new KubeApiError(0, 'Unreachable', 'GET /x: ECONNREFUSED', { detail: 'ECONNREFUSED' }),
      'list apps',
    );
    expect(down).toBeInstanceOf(UnavailableError);
    expect(down.message).toBe('list apps: cluster unreachable (ECONNREFUSED)');
    expect(httpStatusOf(down)).toBe(503);
    const forbidden = toSvcError(api(403, 'apps is forbidden: User "x" cannot list'), 'list apps');
    expect(forbidden).toBeInstanceOf(UpstreamError);
    expect(forbidden.message).toBe('list apps: cluster answered 403 apps is forbidden: User "x" cannot list');
    expect(httpStatusOf(forbidden)).toBe(502);
    expect(toSvcError(new Error('socket hang up'), 'x')).toBeInstanceOf(UnavailableError);
  });

  it('passes svc errors through: a bad kubeconfig is bad input, a failing plugin is unavailability', () => {
    const bad = new KubeconfigError('kubeconfig has no server');
    expect(toSvcError(bad, 'x')).toBe(bad);
    expect(bad).toBeInstanceOf(InputError);
    const plugin = new CredentialError('exec plugin failed');
    expect(toSvcError(plugin, 'x')).toBe(plugin);
    expect(httpStatusOf(plugin)).toBe(503);
  });
});
