/** `POST /preview` (docs/api.md "Preview a ref"): a ref of a repository previewed for every App built from it. */
import { type Api, principalOf } from '../api.ts';
import * as contract from '../preview/contract.ts';
import { previewRepository } from '../preview/use-cases.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers POST /preview. */
export async function previewRoutes(api: Api, services: ApiServices): Promise<void> {
  api.post('/preview', { schema: contract.previewRoute }, async (request) =>
    run(services, previewRepository, principalOf(request), request.body),
  );
}
