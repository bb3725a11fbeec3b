/**
 * POST /import (docs/api.md "Import"; issue 28): Argo CD and Flux objects in, what each becomes out; dry-run unless
 * `apply`. Any caller who reads Apps may dry-run; apply creates each object under its own create route's rules, Apps
 * pending their take-over; POST /import/confirm and /import/undo end it per App.
 */
import { type Api, principalOf } from '../api.ts';
import { confirmImport, undoImport } from '../import/confirm-use-cases.ts';
import * as contract from '../import/contract.ts';
import { importObjects } from '../import/use-cases.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the import routes. */
export async function importRoutes(api: Api, services: ApiServices): Promise<void> {
  api.post('/import', { schema: contract.importRoute, bodyLimit: contract.IMPORT_BODY_LIMIT_BYTES }, async (request) =>
    run(services, importObjects, principalOf(request), request.body),
  );
  api.post('/import/confirm', { schema: contract.confirmImportRoute }, async (request) =>
    run(services, confirmImport, principalOf(request), request.body),
  );
  api.post('/import/undo', { schema: contract.undoImportRoute }, async (request) =>
    run(services, undoImport, principalOf(request), request.body),
  );
}
