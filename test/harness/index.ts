/**
 * The test harness: real components on loopback for integration tests (see docs in each module).
 * The management control plane is started once per run by ./global-setup.ts (`inject('mgmtKubeconfig')`).
 */

export { type AdmissionHold, type AdmissionRecord, startAdmissionHold } from './admission-hold.ts';
export { CHROMIUM, chromiumRequirement, launchBrowser } from './browser.ts';
export {
  type ChartFiles,
  type ChartRepo,
  guestbookChart,
  helmPackage,
  packChart,
  pushChart,
  startChartRepo,
  umbrellaChart,
} from './chart-repo.ts';
export { type ChatSink, type SinkRequest, startChatSink } from './chat-sink.ts';
export { type CliRun, runCli, SVC_BIN } from './cli.ts';
export {
  type ControlPlane,
  type ControlPlaneOptions,
  crdDir,
  type ServiceAccountKubeconfigOptions,
  serviceAccountKubeconfig,
  serviceAccountToken,
  startControlPlane,
  type ThroughputOptions,
} from './control-plane.ts';
export {
  type CreateRepoOptions,
  type GitHold,
  type GitRepo,
  type GitServer,
  type GitServerOptions,
  startGitServer,
} from './git-server.ts';
export { helm } from './helm.ts';
export { type HttpRequestOptions, type HttpResponse, request as httpRequest } from './http.ts';
export {
  apiserverMetric,
  apiserverRequestCounts,
  type KubeCredentials,
  kubeClient,
  kubeconfigYaml,
  kubectl,
  kubectlPath,
  type MetricSample,
} from './kube.ts';
export { captureForLeakScan, LeakScanLog, registerSecret } from './leak-registry.ts';
export { type OpenBao, startOpenBao } from './openbao.ts';
export { type OtelCollector, type ReceivedSpan, startOtelCollector } from './otel-collector.ts';
export { binary, cacheDir, ensureBinaries, pinnedVersion, repoRoot } from './paths.ts';
export { freePort } from './ports.ts';
export { createPostgresDatabase, freshDatabase, type PostgresDatabase, postgresServerURL } from './postgres.ts';
export { type PostgresInstance, postgresBinariesRequirement, startPostgresInstance } from './postgres-instance.ts';
export { PREVIOUS_RELEASE, previousRelease, previousReleaseMissing } from './previous-release.ts';
export { waitUntil } from './process.ts';
export { mediaTypes, type PushedImage, type Registry, type RegistryOptions, startRegistry } from './registry.ts';
export {
  describeWith,
  inCI,
  postgresRequirement,
  type Requirement,
  scriptRequirement,
  tmuxRequirement,
} from './requirements.ts';
export { openSse, type SseEvent, type SseStream } from './sse.ts';
export { SSHD, type SshGitServer, type SshKey, startSshGitServer } from './ssh-git-server.ts';
export { type SvcProcess, startSvc } from './svc.ts';
export { SVC_HTTP_PASSWORD, type SvcAnswer, SvcHttp } from './svc-http.ts';
