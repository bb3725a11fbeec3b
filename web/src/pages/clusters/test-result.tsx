import type { ClusterTest } from '../../api/types.ts';
import { countOf } from '../../lib/format.ts';

/** What POST /clusters/test answered: reachable (version, namespaces) or why not, in the server's words. */
export function ClusterTestResult({ result }: { result: ClusterTest }) {
  return (
    <output
      data-testid="cluster-test"
      className={
        result.ok
          ? 'block rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-900 dark:bg-emerald-950'
          : 'block rounded-md border border-red-300 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950'
      }
    >
      {result.ok ? (
        <>
          Connected: Kubernetes {result.version}
          {result.namespaces ? ` (${countOf(result.namespaces.length, 'namespace')})` : ''}
        </>
      ) : (
        <>Cannot connect: {result.error}</>
      )}
    </output>
  );
}
