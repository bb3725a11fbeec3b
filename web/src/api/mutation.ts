/** The shape most of the UI's writes take: a request, then the queries it changed are fetched again. */
import { useMutation, useQueryClient } from '@tanstack/react-query';

/** A mutation sending `mutationFn`; once it succeeded, the queries under `queryKey` are refetched. */
export function useRefreshingMutation<V, R>(mutationFn: (variables: V) => Promise<R>, queryKey: readonly unknown[]) {
  const qc = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => qc.invalidateQueries({ queryKey }) });
}
