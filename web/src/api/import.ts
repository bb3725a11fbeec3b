/** The import (POST /import): a dry-run review and the apply, from YAML text or a cluster (docs/migrate.md). */
import { useMutation } from '@tanstack/react-query';
import { svc } from './client.ts';
import { useRefreshingMutation } from './mutation.ts';
import type { RequestBody } from './types.ts';

/** What POST /import takes: `documents` or `from`, and `apply`. */
export type ImportInput = RequestBody<'/api/v1/import', 'post'>;

/** The dry-run: what each object would become; creates nothing. */
export const useImportReview = () =>
  useMutation({ mutationFn: (body: ImportInput) => svc.POST('/api/v1/import', { body: { ...body, apply: false } }) });

/** The apply: creates what the objects map to; the App, AppSet, repository and registry lists are read again. */
export const useImportApply = () =>
  useRefreshingMutation((body: ImportInput) => svc.POST('/api/v1/import', { body: { ...body, apply: true } }), []);
