import type { StoreTestResult } from '../../api/types.ts';

/** What a store test answered: connected (with what succeeded), untested (eso), or the error and its class. */
export function StoreTestResultView({ result }: { result: StoreTestResult }) {
  const ok = result.status !== 'error';
  return (
    <output
      data-testid="store-test"
      className={
        ok
          ? 'block rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-900 dark:bg-emerald-950'
          : 'block rounded-md border border-red-300 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950'
      }
    >
      {result.status === 'error' ? (
        <>
          Test failed ({result.errorClass}): {result.error}
        </>
      ) : (
        <>
          {result.status === 'connected' ? 'Connected' : 'Not tested (nothing to reach)'} in {result.latency} ms
          {Object.keys(result.details ?? {}).length > 0 ? (
            <pre className="mt-2 overflow-x-auto text-xs">{JSON.stringify(result.details, null, 2)}</pre>
          ) : null}
        </>
      )}
    </output>
  );
}
