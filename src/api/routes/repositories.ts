/**
 * /repositories (docs/api.md "Repositories"; issue 24): GET/POST /repositories, GET/PATCH/DELETE
 * /repositories/{id}, GET /repositories/{id}/references, GET /repositories/{id}/charts, POST /repositories/test and
 * POST /repositories/{id}/test. Reads need `repository:read`; writes and tests `repository:manage` with a session
 * (API keys get 403, like registries). Credentials are write-only.
 */
import { type Api, principalOf } from '../api.ts';
import * as contract from '../repositories/contract.ts';
import * as repositories from '../repositories/use-cases.ts';
import { repositoryView as view } from '../repositories/view.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** Registers the repository routes. */
export async function repositoryRoutes(api: Api, services: ApiServices): Promise<void> {
  const manage = { sessionOnly: true } as const;

  api.get('/repositories', { schema: contract.listRepositoriesRoute }, async (request) => ({
    repositories: (await run(services, repositories.listRepositories, principalOf(request), undefined)).map(view),
  }));

  api.get('/repositories/:id', { schema: contract.getRepositoryRoute }, async (request) =>
    view(await run(services, repositories.getRepository, principalOf(request), request.params.id)),
  );

  api.get('/repositories/:id/references', { schema: contract.repositoryReferencesRoute }, async (request) => ({
    references: await run(services, repositories.repositoryReferences, principalOf(request), request.params.id),
  }));

  api.get('/repositories/:id/charts', { schema: contract.repositoryChartsRoute }, async (request) => ({
    charts: await run(services, repositories.repositoryCharts, principalOf(request), {
      id: request.params.id,
      chart: request.query.chart,
    }),
  }));

  api.post('/repositories', { config: manage, schema: contract.createRepositoryRoute }, async (request, reply) =>
    reply.code(201).send(view(await run(services, repositories.createRepository, principalOf(request), request.body))),
  );

  api.patch('/repositories/:id', { config: manage, schema: contract.updateRepositoryRoute }, async (request) => {
    const input = { id: request.params.id, body: request.body };
    return view(await run(services, repositories.updateRepository, principalOf(request), input));
  });

  api.delete('/repositories/:id', { config: manage, schema: contract.deleteRepositoryRoute }, async (request) => {
    const deleted = await run(services, repositories.deleteRepository, principalOf(request), request.params.id);
    return { deleted: true, id: deleted.id };
  });

  api.post('/repositories/test', { config: manage, schema: contract.testUnsavedRepositoryRoute }, async (request) =>
    run(services, repositories.testUnsavedRepository, principalOf(request), request.body),
  );

  api.post('/repositories/:id/test', { config: manage, schema: contract.testSavedRepositoryRoute }, async (request) =>
    run(services, repositories.testSavedRepository, principalOf(request), request.params.id),
  );
}
