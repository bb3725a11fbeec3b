import { describe, expect, it } from 'vitest';
import type { HealthCheck } from '../../core/app-schema.ts';
import { UpstreamError } from '../../core/errors.ts';
import { OrgCheckLookup } from './org-checks.ts';

/** A hand-written channel (a fake, named as such): answers from a list, or fails; counts calls. */
class FakeChannel {
  calls = 0;
  answer: HealthCheck[] | Error = [];
  async healthChecks(): Promise<HealthCheck[]> {
    this.calls++;
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }
}

const check: HealthCheck = { apiVersion: 'v1', kind: 'Service', current: 'true' };

describe('OrgCheckLookup', () => {
  it('asks once per period, keeps the last answer while the server fails, and asks a failing server once per period', async () => {
    const channel = new FakeChannel();
    const lookup = new OrgCheckLookup(channel, 60_000);
    channel.answer = [check];
    expect(await lookup.get('org-a')).toEqual([check]);
    expect(await lookup.get('org-a')).toEqual([check]);
    expect(channel.calls).toBe(1);
    expect(lookup.known('org-a')).toEqual([check]);

    const failing = new OrgCheckLookup(channel, 0);
    expect(await failing.get('org-b')).toEqual([check]);
    channel.answer = new UpstreamError('server unreachable');
    expect(await failing.get('org-b')).toEqual([check]);
  });
  it('without a channel no org has checks', async () => {
    expect(await new OrgCheckLookup(undefined).get('org-a')).toEqual([]);
  });
});
