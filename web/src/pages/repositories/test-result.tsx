import type { RepositoryTestResult } from '../../api/types.ts';

/** What a repository test answered: reachable (and what was found), or the error and its class. */
export function RepositoryTestResultView({ result }: { result: RepositoryTestResult }) {
  const ok = result.status === 'connected';
  return (
    <output
      data-testid="repository-test"
      className={
        ok
          ? 'block rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-900 dark:bg-emerald-950'
          : 'block rounded-md border border-red-300 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950'
      }
    >
      {ok ? (
        <>
          Reached {result.details?.url} ({result.details?.authenticated ? 'with credentials' : 'anonymously'}),{' '}
          {result.details?.found} found, in {result.latency} ms
        </>
      ) : (
        <>
          Test failed ({result.errorClass}): {result.error}
        </>
      )}
    </output>
  );
}
