/**
 * The shapes the UI reads: svc's answers as the generated client names them (src/client/answers.ts, from the
 * server's OpenAPI document), so a change of an answer on the server is a type error here once `npm run generate`
 * ran. The auth component's shapes are in ./auth.ts.
 */
export type {
  AppPage,
  AppSetView,
  AppView,
  AuditEntry,
  ChartListing,
  Cluster,
  ClusterTest,
  CreatedWebhook,
  HistoryRevision,
  ImportEntry,
  ImportReport,
  Incident,
  ObjectDiff,
  Registry,
  RegistryTestResult,
  RegistryWithToken,
  Repository,
  RepositoryReference,
  RepositoryTestResult,
  RequestBody,
  SecretStore,
  StatusView,
  StoreTestResult,
  Team,
  TimelineEntry,
  TreeNode,
} from '../../../src/client/answers.ts';
