/**
 * The services that read an App's destination live (diff, resource tree, logs), one set per API server, shared by
 * the REST routes (routes/app-live.ts) and the MCP tools (src/mcp/tools.ts): one DesiredState, so one render cache
 * and one git cache directory, whoever asks.
 */
import { ConflictError } from '../../core/errors.ts';
import type { DesiredState } from '../../engine/desired-state.ts';
import type { RegistryEndpoint } from '../../registry/index.ts';
import { HealthCheckStore } from '../../store/health-checks.ts';
import { orgIdOfNamespace } from '../../store/orgs.ts';
import { catalogTemplateOf } from '../catalog/lookup.ts';
import type { ApiServices } from '../services.ts';
import { DiffService } from './diff-service.ts';
import { ResourceService } from './resource-service.ts';

/** The live-reading services of one API server. */
export interface LiveReads {
  diffs: DiffService;
  resources: ResourceService;
  /** The server's DesiredState (loaded on first use): its source drivers also describe the history's revisions. */
  desired: () => Promise<DesiredState>;
}

const built = new WeakMap<ApiServices, LiveReads>();

/** The registry `name` of the org whose App namespace is `namespace` (ConflictError when it has none such). */
async function registryOf(services: ApiServices, namespace: string, name: string): Promise<RegistryEndpoint> {
  const orgId = await orgIdOfNamespace(services.store.db, namespace);
  const endpoint = orgId === undefined ? undefined : await services.registries.endpoint(orgId, name);
  if (!endpoint) throw new ConflictError(`registry "${name}" is not registered in this organization`);
  return endpoint;
}

/** The live-reading services of `services`' server, built on first use. */
export function liveReadsOf(services: ApiServices): LiveReads {
  const existing = built.get(services);
  if (existing) return existing;
  // The render code (git, kustomize, helm drivers) loads with the first diff, not with every server.
  let desired: Promise<DesiredState> | undefined;
  const loadDesired = () => {
    desired ??= import('../../engine/desired-state.ts').then(
      ({ DesiredState }) =>
        new DesiredState({
          cacheDir: services.config.cacheDir,
          toolsDir: services.config.toolsDir,
          limits: services.config.render,
          outbound: services.config.outbound,
          access: (request) => services.sourceAccess.sourceAccess(request),
          catalog: (namespace, name, version) => catalogTemplateOf(services.store.db, namespace, name, version),
          image: {
            client: services.images.client,
            registry: (namespace, name) => registryOf(services, namespace, name),
          },
        }),
    );
    return desired;
  };
  const reads = {
    diffs: new DiffService(services.destinations, loadDesired),
    resources: new ResourceService(services.destinations, new HealthCheckStore(services.store.db)),
    desired: loadDesired,
  };
  built.set(services, reads);
  return reads;
}
