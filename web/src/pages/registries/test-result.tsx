import type { RegistryTestResult } from '../../api/types.ts';

/** What a registry test answered: connected (anonymously or authenticated), or the error and its class. */
export function RegistryTestResultView({ result }: { result: RegistryTestResult }) {
  return (
    <output
      data-testid="registry-test"
      className={
        result.status === 'connected'
          ? 'block rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-900 dark:bg-emerald-950'
          : 'block rounded-md border border-red-300 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950'
      }
    >
      {result.status === 'connected' ? (
        <>
          Connected to {result.details?.host} ({result.details?.authenticated ? 'authenticated' : 'anonymous'}) in{' '}
          {result.latency} ms
        </>
      ) : (
        <>
          Test failed ({result.errorClass}): {result.error}
        </>
      )}
    </output>
  );
}
