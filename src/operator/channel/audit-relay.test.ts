import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { InputError, UpstreamError } from '../../core/errors.ts';
import type { ServerChannel, SystemAuditEntry } from '../../internal/channel.ts';
import { AuditRelay } from './audit-relay.ts';

/**
 * A hand-written ServerChannel (a fake, named as such): it fails with the errors it is given, then succeeds. The
 * unit under test is the relay's retry rule, not a transport; the real channels are proved in
 * test/integration/internal-channel.test.ts.
 */
class FakeChannel implements Pick<ServerChannel, 'recordAudit'> {
  calls = 0;
  recorded: SystemAuditEntry[] = [];
  readonly failures: Error[];
  constructor(failures: Error[]) {
    this.failures = failures;
  }
  async recordAudit(entry: SystemAuditEntry): Promise<void> {
    const failure = this.failures[this.calls++];
    if (failure) throw failure;
    this.recorded.push(entry);
  }
  async clusterAccess(): Promise<never> {
    throw new Error('not used by the relay');
  }
}

const entry: SystemAuditEntry = {
  orgNamespace: 'org-acme',
  action: 'app.sync',
  resourceType: 'app',
  resourceName: 'web',
  details: { triggeredBy: 'webhook:gitA' },
};

function relayOf(channel: Pick<ServerChannel, 'recordAudit'>) {
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (l: string) => lines.push(l) });
  return { relay: new AuditRelay(channel, logger, { attempts: 3, retryDelayMs: 1 }), lines };
}

describe('AuditRelay', () => {
  it('retries failures that may pass, and records the entry', async () => {
    const channel = new FakeChannel([new UpstreamError('server unreachable'), new Error('socket hang up')]);
    const { relay, lines } = relayOf(channel);
    relay.record(entry);
    await relay.drain();
    expect(channel.calls).toBe(3);
    expect(channel.recorded).toEqual([entry]);
    expect(lines).toEqual([]);
  });

  it('gives up after the last attempt and logs it, without throwing', async () => {
    const channel = new FakeChannel([1, 2, 3].map(() => new UpstreamError('server unreachable')));
    const { relay, lines } = relayOf(channel);
    relay.record(entry);
    await relay.drain();
    expect(channel.calls).toBe(3);
    expect(lines.join('')).toContain('audit entry not recorded');
  });

  it('does not retry what would be refused again', async () => {
    const channel = new FakeChannel([new InputError('no organization owns namespace "org-acme"')]);
    const { relay, lines } = relayOf(channel);
    relay.record(entry);
    await relay.drain();
    expect(channel.calls).toBe(1);
    expect(lines.join('')).toContain('no organization owns namespace');
  });
});
