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

/** An App's pending import, named as the confirm and undo routes take it. */
type ImportedApp = { namespace: string; name: string };

/** Confirms an App's take-over (POST /import/confirm): it prunes from then on; the App and lists are read again. */
export const useImportConfirm = () =>
  useRefreshingMutation((app: ImportedApp) => svc.POST('/api/v1/import/confirm', { body: app }), []);

/** Undoes an App's import (POST /import/undo): the old controller's settings come back and the App is deleted. */
export const useImportUndo = () =>
  useRefreshingMutation((app: ImportedApp) => svc.POST('/api/v1/import/undo', { body: app }), []);
