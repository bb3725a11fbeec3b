/**
 * The internal routes the operator calls (docs/api.md "Internal routes", docs/compatibility.md "Internal channel"),
 * served under both `/internal` and `/api/v1/internal` (contract §4.3 writes its internal endpoint both ways) and
 * left out of the public OpenAPI document. Only the operator's credential is accepted (src/auth/operator-auth.ts).
 *
 * POST /internal/audit records a caller-less audit entry (user_id empty) about an App, in the org owning the App's
 * namespace: 201 `{recorded: true}`; 400 bad body; 401 no or invalid credential; 403 a user's credential or a
 * ServiceAccount outside the allowlist; 404 no org owns the namespace; 503 the TokenReview could not be made.
 *
 * GET /internal/clusters/{name}/kubeconfig?org_namespace=<org-…> answers how the operator reaches the org's cluster
 * (ClusterAccessBody: name, org_namespace, server_url, namespaces, credentials `kubeconfig` | `in-cluster`,
 * kubeconfig, revision) with `ETag: "<revision>"`; `If-None-Match` with the current revision answers 304 without a
 * body. 400 without org_namespace; 404 no such org or cluster; 401/403/503 as above. Never cached by intermediaries.
 *
 * POST /internal/secret-stores/decryption-key `{app_namespace, app_name, store_ref}` answers 200 `{private_key}`, the
 * age identity of the sops store the App's `decryption.storeRef` names; POST /internal/secret-stores/env
 * `{app_namespace, app_name, refs: [{name, id, path, key}]}` answers 200 `{values: [{name, value} | {name,
 * externalSecret}]}`, the App's env.store entries resolved by the server. Both: 400 a store of the wrong type, 403
 * the App does not use that store, 404 no such App, org or store, 429 the App's fetches are rate-limited, 502 the
 * store failed (its message names the errorClass cause). The answers hold secrets: never logged.
 *
 * POST /internal/repositories/access `{org_namespace, type: git|helm, url, repository_ref?}` answers the credentials
 * that reach an App's source (the named repository, else the org's covering repository with the longest URL, else
 * for an oci:// chart the org's registry of that host): 200 `{repository, insecure?, credentials: {username?,
 * password?, ssh_private_key?, known_hosts?, ca?, tls_client_cert?, tls_client_key?}}`, or `{repository: null}`
 * when none covers the URL; 404 when repository_ref names no repository of that type covering the URL. Never
 * logged.
 *
 * GET /internal/registries/{org_namespace}/{name} answers the registry an image App names (`registryRef`) with its
 * credentials opened, for the operator's registry client: 200 `{host, insecure, ca?, username?, password?}`; 404
 * when no org owns the namespace or the org has no such registry; 401/403/503 as above. Never logged.
 *
 * GET /internal/clusters?org_namespace=<org-…> answers the org's registered clusters with their labels, never how to
 * reach them, for AppSets' clusters generator: 200 `{items: [{name, labels}]}`; 400 without org_namespace; 404 when
 * no org owns the namespace.
 *
 * GET /internal/health-checks/{org_namespace} answers the org's custom health checks for the operator:
 * 200 `{items: [{apiVersion, kind, current, inProgress?, failed?}]}`; 404 when no org owns the namespace.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { OperatorAuthenticator } from '../../auth/operator-auth.ts';
import type { ClusterAccessBody } from '../../internal/channel.ts';
import {
  INTERNAL_AUDIT_PATH,
  INTERNAL_CATALOG_PATH,
  INTERNAL_CLUSTERS_PATH,
  INTERNAL_DECRYPTION_KEY_PATH,
  INTERNAL_ENV_VALUES_PATH,
  INTERNAL_HEALTH_CHECKS_PATH,
  INTERNAL_PREFIXES,
  INTERNAL_REGISTRY_PATH,
  INTERNAL_SOURCE_ACCESS_PATH,
  INTERNAL_WINDOWS_PATH,
  type ServerChannel,
  sourceAccessBody,
} from '../../internal/channel.ts';
import * as contract from '../internal/contract.ts';

/** Registers the internal routes under both prefixes. */
export async function internalRoutes(
  app: FastifyInstance,
  deps: { operators: OperatorAuthenticator; channel: ServerChannel },
): Promise<void> {
  for (const prefix of INTERNAL_PREFIXES) {
    await app.register(
      async (plain) => {
        const internal = plain.withTypeProvider<TypeBoxTypeProvider>();
        internal.addHook('onRequest', async (request) => {
          if (request.is404) return;
          await deps.operators.authenticate({
            cookie: request.headers.cookie,
            authorization: request.headers.authorization,
          });
        });
        internal.post(INTERNAL_AUDIT_PATH, { schema: contract.auditRoute }, async (request, reply) => {
          const b = request.body;
          await deps.channel.recordAudit({
            orgNamespace: b.org_namespace,
            action: b.action,
            resourceType: b.resource_type,
            ...(b.resource_id ? { resourceId: b.resource_id } : {}),
            resourceName: b.resource_name,
            details: b.details,
          });
          return reply.code(201).send({ recorded: true });
        });
        internal.get('/clusters/:name/kubeconfig', { schema: contract.clusterAccessRoute }, async (request, reply) => {
          const known = /^"([^"]+)"$/.exec(request.headers['if-none-match'] ?? '')?.[1];
          const answer = await deps.channel.clusterAccess(request.query.org_namespace, request.params.name, known);
          reply.header('cache-control', 'no-store');
          if (!answer.changed) return reply.code(304).header('etag', `"${known}"`).send();
          const c = answer.cluster;
          const body: ClusterAccessBody = {
            name: c.name,
            org_namespace: c.orgNamespace,
            server_url: c.serverURL,
            namespaces: c.namespaces,
            credentials: c.kubeconfig === undefined ? 'in-cluster' : 'kubeconfig',
            ...(c.kubeconfig === undefined ? {} : { kubeconfig: c.kubeconfig }),
            revision: c.revision,
          };
          return reply.header('etag', `"${c.revision}"`).send(body);
        });
        internal.get(INTERNAL_CLUSTERS_PATH, { schema: contract.clustersRoute }, async (request, reply) => {
          reply.header('cache-control', 'no-store');
          return { items: await deps.channel.clusters(request.query.org_namespace) };
        });
        internal.post(INTERNAL_DECRYPTION_KEY_PATH, { schema: contract.decryptionKeyRoute }, async (request) => {
          const b = request.body;
          const key = await deps.channel.decryptionKey({
            appNamespace: b.app_namespace,
            appName: b.app_name,
            storeRef: b.store_ref,
          });
          return { private_key: key };
        });
        internal.post(INTERNAL_ENV_VALUES_PATH, { schema: contract.envValuesRoute }, async (request) => {
          const b = request.body;
          const values = await deps.channel.envValues({
            appNamespace: b.app_namespace,
            appName: b.app_name,
            refs: b.refs,
          });
          return { values };
        });
        internal.get(
          `${INTERNAL_REGISTRY_PATH}/:org_namespace/:name`,
          { schema: contract.registryRoute },
          async (request) => {
            const r = await deps.channel.registry(request.params.org_namespace, request.params.name);
            return {
              host: r.host,
              insecure: r.insecure === true,
              ...(r.ca ? { ca: r.ca } : {}),
              ...(r.credentials ? { username: r.credentials.username, password: r.credentials.password } : {}),
            };
          },
        );
        internal.get(
          `${INTERNAL_HEALTH_CHECKS_PATH}/:org_namespace`,
          { schema: contract.healthChecksRoute },
          async (request) => ({ items: await deps.channel.healthChecks(request.params.org_namespace) }),
        );
        internal.get(
          `${INTERNAL_WINDOWS_PATH}/:org_namespace`,
          { schema: contract.deliveryWindowsRoute },
          async (request) => deps.channel.deliveryWindows(request.params.org_namespace),
        );
        internal.get(
          `${INTERNAL_CATALOG_PATH}/:org_namespace/:name`,
          { schema: contract.catalogTemplateRoute },
          async (request) => {
            const { org_namespace, name } = request.params;
            const version = request.query.version;
            return deps.channel.catalogTemplate(org_namespace, name, version ? Number(version) : undefined);
          },
        );
        internal.post(INTERNAL_SOURCE_ACCESS_PATH, { schema: contract.sourceAccessRoute }, async (request) => {
          const b = request.body;
          const access = await deps.channel.sourceAccess({
            orgNamespace: b.org_namespace,
            type: b.type,
            url: b.url,
            ...(b.repository_ref ? { repositoryRef: b.repository_ref } : {}),
          });
          return sourceAccessBody(access);
        });
      },
      { prefix },
    );
  }
}
