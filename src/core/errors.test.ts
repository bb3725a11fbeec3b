import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  describeError,
  ForbiddenError,
  httpStatusOf,
  InputError,
  NotFoundError,
  PayloadTooLargeError,
  UnauthenticatedError,
  UnavailableError,
  UpstreamError,
} from './errors.ts';
import { isDnsLabel, orgNamespace, orgSlugOf } from './names.ts';

describe('typed errors', () => {
  it('map to the statuses of contract §7 in one place', () => {
    expect(httpStatusOf(new InputError('x'))).toBe(400);
    expect(httpStatusOf(new UnauthenticatedError('x'))).toBe(401);
    expect(httpStatusOf(new ForbiddenError('x'))).toBe(403);
    expect(httpStatusOf(new NotFoundError('x'))).toBe(404);
    expect(httpStatusOf(new ConflictError('x'))).toBe(409);
    expect(httpStatusOf(new PayloadTooLargeError('x'))).toBe(413);
    expect(httpStatusOf(new UpstreamError('x'))).toBe(502);
    expect(httpStatusOf(new UnavailableError('x'))).toBe(503);
    expect(httpStatusOf(new Error('boom'))).toBe(500);
  });

  it('keep stable codes, retry hints and chained causes', () => {
    const err = new UpstreamError('fetch failed', { cause: new Error('connection refused') });
    expect(err.code).toBe('upstream_failed');
    expect(err.retry).toBe('retry');
    expect(new InputError('bad').retry).toBe('stall');
    expect(describeError(err)).toBe('fetch failed: connection refused');
    expect(err.name).toBe('UpstreamError');
  });
});

describe('names', () => {
  it('checks DNS-1123 labels and forms org namespaces', () => {
    expect(isDnsLabel('web-1')).toBe(true);
    expect(isDnsLabel('web-')).toBe(false);
    expect(orgNamespace('acme')).toBe('org-acme');
    expect(orgSlugOf('org-acme')).toBe('acme');
    expect(orgSlugOf('default')).toBeUndefined();
    expect(() => orgNamespace('Acme Inc')).toThrow(/does not form a valid namespace/);
  });
});
