/**
 * Names for what svc's REST API answers and accepts, taken from the generated types (./openapi.gen.ts) by path and
 * method, so they follow the server's schemas without being written twice, and keep their meaning whether a schema
 * is inline or a named component. The CLI and the web UI use these names; neither declares an answer of its own.
 */
import type { OkStatus } from 'openapi-typescript-helpers';
import type { paths } from './openapi.gen.ts';

/** A path of the API, as the document spells it (`/api/v1/apps/{namespace}/{name}`). */
export type ApiPath = keyof paths;

/** The methods `Path` serves. */
export type MethodOf<Path extends ApiPath> = {
  [Method in keyof paths[Path]]: paths[Path][Method] extends { responses: unknown } ? Method : never;
}[keyof paths[Path]];

/** The JSON body of the `Status` answer (by default any 2xx) of `Method` on `Path`. */
export type Answer<
  Path extends ApiPath,
  Method extends MethodOf<Path> = 'get' & MethodOf<Path>,
  Status extends number = OkStatus & number,
> = paths[Path][Method] extends { responses: infer Responses }
  ? {
      [S in keyof Responses & Status]: Responses[S] extends { content: { 'application/json': infer Body } }
        ? Body
        : never;
    }[keyof Responses & Status]
  : never;

/** The JSON request body of `Method` on `Path`. */
export type RequestBody<Path extends ApiPath, Method extends MethodOf<Path>> = paths[Path][Method] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** The query parameters of `Method` on `Path`. */
export type QueryOf<Path extends ApiPath, Method extends MethodOf<Path> = 'get' & MethodOf<Path>> = NonNullable<
  paths[Path][Method] extends { parameters: { query?: infer Query } } ? Query : never
>;

/** An element of a list that may be absent from an answer. */
export type Item<List> = NonNullable<List> extends ReadonlyArray<infer Element> ? Element : never;

// Apps (contract §4.2).
type AppPath = '/api/v1/apps/{namespace}/{name}';
/** An App as the API shows it (contract §2.1). */
export type AppView = Answer<AppPath>;
/** A page of GET /apps. */
export type AppPage = Answer<'/api/v1/apps'>;
/** The create payload of POST /apps. */
export type AppCreate = RequestBody<'/api/v1/apps', 'post'>;
/** The status view of an App (contract §2.2). */
export type StatusView = Answer<`${AppPath}/status`>;
/** One Kubernetes event of an App. */
export type AppEvent = Item<Answer<`${AppPath}/events`>['events']>;
/** The applied-revision history of an App. */
export type AppHistory = Answer<`${AppPath}/history`>;
/** One applied revision with what its source says of it (commit subject, author, date; an image's tag). */
export type HistoryRevision = Item<AppHistory['revisions']>;
/** GET /apps/{ns}/{name}/approvals. */
export type AppApprovals = Answer<`${AppPath}/approvals`>;
export type AppWindows = Answer<`${AppPath}/windows`>;
export type DeliveryWindows = Answer<'/api/v1/delivery-windows'>;
/** What a sync would change. */
export type AppDiff = Answer<`${AppPath}/diff`>;
/** One object of an App's diff. */
export type ObjectDiff = Item<AppDiff['objects']>;
/** The live objects of an App as a tree. */
export type AppTree = Answer<`${AppPath}/resources`>;
/** One object of an App's live tree. */
export type TreeNode = Item<AppTree['nodes']>;
/** The answer of an operation route (sync, deploy, rollback, …): what was asked, and the operation's id. */
export type OperationAnswer = Answer<`${AppPath}/sync`, 'post'>;
/** A workload that `adopt` could take over. */
export type AdoptableWorkload = Item<Answer<'/api/v1/apps/adoptable'>['workloads']>;

// Identity and access.
/** The caller as the API sees it. */
export type Me = Answer<'/api/v1/auth/me'>;
/** An API key (its secret only in the answer that created it). */
export type ApiKey = Item<Answer<'/api/v1/auth/api-keys'>['api_keys']>;
/** The answer of POST /auth/can-i. */
export type CanIAnswer = Answer<'/api/v1/auth/can-i', 'post'>;
/** A role binding. */
export type RoleBinding = Item<Answer<'/api/v1/role-bindings'>['bindings']>;
/** One entry of the audit log. */
export type AuditEntry = Item<Answer<'/api/v1/audit'>['entries']>;
/** A team with its members and bindings. */
export type Team = Answer<'/api/v1/teams/{id}'>;
/** A team in the list. */
export type TeamSummary = Item<Answer<'/api/v1/teams'>['teams']>;

// AppSets (issue 27).
/** An AppSet with the Apps it generated and its errors. */
export type AppSetView = Answer<'/api/v1/appsets/{name}'>;
/** The create payload of POST /appsets. */
export type AppSetCreate = RequestBody<'/api/v1/appsets', 'post'>;
export type AppSetUpdate = RequestBody<'/api/v1/appsets/{name}', 'put'>;

// Clusters, registries, secret stores.
/** A registered cluster. */
export type Cluster = Answer<'/api/v1/clusters/{name}'>['cluster'];
/** The answer of a cluster connection test. */
export type ClusterTest = Answer<'/api/v1/clusters/test', 'post'>;
/** A registered registry. */
export type Registry = Answer<'/api/v1/registries/{id}'>;
/** The answer of a registry connection test. */
export type RegistryTestResult = Answer<'/api/v1/registries/test', 'post'>;
/** An org's custom health check (CEL) for one apiVersion and kind. */
export type HealthCheck = Answer<'/api/v1/health-checks/{id}'>;
/** A catalog template at its current version. */
export type CatalogTemplate = Answer<'/api/v1/catalog/{name}'>;
/** The body that writes a catalog template. */
export type CatalogTemplateWrite = RequestBody<'/api/v1/catalog', 'post'>;
/** A repository (never its secrets). */
export type Repository = Answer<'/api/v1/repositories/{id}'>;
export type ImportReport = Answer<'/api/v1/import', 'post'>;
export type ImportEntry = ImportReport['entries'][number];
/** The answer of POST /preview: a ref previewed for every App built from a repository. */
export type PreviewReport = Answer<'/api/v1/preview', 'post'>;
/** Charts of a Helm repository with their versions. */
export type ChartListing = Item<Answer<'/api/v1/repositories/{id}/charts'>['charts']>;
/** An App using a repository. */
export type RepositoryReference = Item<Answer<'/api/v1/repositories/{id}/references'>['references']>;
/** The result of a repository test. */
export type RepositoryTestResult = Answer<'/api/v1/repositories/test', 'post'>;
/** A secret store. */
export type SecretStore = Answer<'/api/v1/secret-stores/{id}'>;
/** A secret-store provider and what it needs. */
export type SecretStoreProvider = Item<Answer<'/api/v1/secret-stores/providers'>['items']>;
/** An App using a secret store. */
export type StoreReference = Item<Answer<'/api/v1/secret-stores/{id}/references'>['items']>;
/** The answer of a secret-store connection test. */
export type StoreTestResult = Answer<'/api/v1/secret-stores/test', 'post'>;

// The operations loop.
/** An outbound webhook. */
export type Webhook = Answer<'/api/v1/webhooks/{id}'>;
/** The answer of POST /webhooks, with the signing secret. */
export type CreatedWebhook = Answer<'/api/v1/webhooks', 'post'>;
/** One delivery of a webhook. */
export type Delivery = Item<Answer<'/api/v1/webhooks/{id}/deliveries'>['deliveries']>;
/** An incident with its remediations and timeline. */
export type Incident = Answer<'/api/v1/incidents/{id}'>;
/** An incident in the list. */
export type IncidentSummary = Item<Answer<'/api/v1/incidents'>['incidents']>;
/** A remediation. */
export type Remediation = Answer<'/api/v1/remediations/{id}'>;
/** One entry of an incident's timeline. */
export type TimelineEntry = Item<Incident['timeline']>;
/** A shell pod on a registered cluster, with how to attach to it. */
export type ClusterShell = Answer<'/api/v1/clusters/{name}/shell', 'post'>['shell'];
/** A registry as create and a token rotation answer it: with its notification token, this once. */
export type RegistryWithToken = Answer<'/api/v1/registries', 'post'>;
