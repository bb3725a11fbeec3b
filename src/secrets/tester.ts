/**
 * The Test of a store (contract §3 store transitions, §4.4 rules 3–6): what each provider does, and the result shape.
 * A failure of the store is a result (`status: "error"` with its errorClass), not an exception; a refusal by the
 * outbound policy is an exception (OutboundRefusedError, 400): the address is the caller's input.
 */
import { performance } from 'node:perf_hooks';
import type { OutboundPolicy } from '../net/outbound.ts';
import { StoreError } from './errors.ts';
import type {
  AgeCredentials,
  ProviderDefinition,
  StoreErrorClass,
  VaultConfig,
  VaultCredentials,
} from './providers.ts';
import { testVault } from './vault.ts';

/** The answer of a test route (without `latency` rounding concerns: milliseconds, integer). */
export type TestOutcome =
  | { status: 'connected'; latency: number; details: Record<string, unknown>; credentialsExpireAt: string | null }
  | { status: 'error'; latency: number; error: string; errorClass: StoreErrorClass }
  | { status: 'untested'; latency: number; details: Record<string, unknown> };

/** A store as the tester sees it: its provider and (opened) fields. */
export interface StoreUnderTest {
  definition: ProviderDefinition;
  config: Record<string, unknown>;
  credentials: Record<string, unknown>;
}

/** How far and how long the tester may call. */
export interface TestContext {
  policy: OutboundPolicy;
  timeoutMs: number;
}

/** Tests a store; resolves with the outcome, rejects only for refusals (400) and bugs. */
export async function testStore(store: StoreUnderTest, ctx: TestContext): Promise<TestOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    switch (store.definition.type) {
      case 'vault': {
        const result = await testVault({
          config: store.config as VaultConfig,
          credentials: store.credentials as VaultCredentials,
          policy: ctx.policy,
          timeoutMs: ctx.timeoutMs,
        });
        return {
          status: 'connected',
          latency: latency(),
          details: result.details,
          credentialsExpireAt: result.credentialsExpireAt,
        };
      }
      case 'sops': {
        // Loaded on first use: the age library is about 20 MiB of the server's resident memory (issue 29).
        const { ageRoundTrip } = await import('./age.ts');
        const details = await ageRoundTrip((store.credentials as AgeCredentials).privateKey);
        return { status: 'connected', latency: latency(), details, credentialsExpireAt: null };
      }
      case 'eso':
        return {
          status: 'untested',
          latency: latency(),
          details: {
            reason:
              'external-secrets stores are not tested: the controller in the destination cluster holds the credentials',
          },
        };
    }
  } catch (err) {
    if (err instanceof StoreError) {
      return { status: 'error', latency: latency(), error: err.message, errorClass: err.errorClass };
    }
    throw err;
  }
}
