/**
 * What each MCP tool of the catalogue (./catalogue.ts) does: its input schema (TypeBox) and a run function that runs
 * the same use-case as the REST route it mirrors (src/api/<resource>/use-cases.ts, through the one pipeline of
 * src/api/use-case.ts: the same permission check and audit entry), with the caller's key owner as the principal and
 * the tool's name carried into audit details. Results are plain objects; ./server.ts wraps them for the protocol and
 * strips credentials.
 */
import { type Static, type TSchema, Type } from 'typebox';
import { appApprovals } from '../api/approval-policy/use-cases.ts';
import { parseListQuery } from '../api/apps/list-query.ts';
import { appLogs, diffApp } from '../api/apps/live-use-cases.ts';
import * as ops from '../api/apps/operation-use-cases.ts';
import { appEvents, appHistory, appStatus, waitMsOf } from '../api/apps/status-use-cases.ts';
import { createApp, freezeApp, getApp, listApps } from '../api/apps/use-cases.ts';
import { appView, statusView } from '../api/apps/view.ts';
import { getAppSet, listAppSets } from '../api/appsets/use-cases.ts';
import { appSetView } from '../api/appsets/view.ts';
import { listAudit } from '../api/audit/use-cases.ts';
import { canI } from '../api/auth/use-cases.ts';
import { listCatalog } from '../api/catalog/use-cases.ts';
import { catalogTemplateView } from '../api/catalog/view.ts';
import { appWindows, getOrgWindows } from '../api/delivery-windows/use-cases.ts';
import { listHealthChecks } from '../api/health-checks/use-cases.ts';
import { healthCheckView } from '../api/health-checks/view.ts';
import { confirmImport, undoImport } from '../api/import/confirm-use-cases.ts';
import { MAX_IMPORT_TEXT } from '../api/import/contract.ts';
import { importObjects } from '../api/import/use-cases.ts';
import { previewRepository } from '../api/preview/use-cases.ts';
import { listRepositories, repositoryCharts } from '../api/repositories/use-cases.ts';
import { repositoryView } from '../api/repositories/view.ts';
import type { ApiServices } from '../api/services.ts';
import { type Principal, run } from '../api/use-case.ts';
import { InputError } from '../core/errors.ts';
import type { ToolName } from '../core/mcp-tools.ts';
import { AUDIT_PAGE_MAX } from '../store/audit.ts';
import { diffDigest, LOG_TOOL_TAIL_MAX, previewDigest, readLogTail } from './live.ts';

/** One tool's implementation. */
export interface ToolImpl<S extends TSchema = TSchema> {
  title: string;
  description: string;
  input: S;
  run(
    services: ApiServices,
    principal: Principal,
    args: Static<S>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
}

function tool<S extends TSchema>(impl: ToolImpl<S>): ToolImpl<S> {
  return impl;
}

const Name = Type.String({ minLength: 1, maxLength: 253, description: 'App name' });
const Namespace = Type.String({ minLength: 1, maxLength: 63, description: 'destination namespace of the App' });
const AppRefInput = Type.Object({ namespace: Namespace, name: Name }, { additionalProperties: false });

/** A compact row of app_list: enough to pick an App and see how it is doing. */
function summary(app: ReturnType<typeof appView>) {
  return {
    name: app.name,
    namespace: app.namespace,
    cluster: app.cluster,
    source_type: String((app.source as { type?: unknown }).type ?? ''),
    sync_status: app.sync_status,
    health: app.health,
    revision: app.revision,
    frozen: app.frozen,
  };
}

/** app_freeze / app_unfreeze: set or clear `spec.freeze` through the App service (audited app.freeze/unfreeze). */
function freezeTool(frozen: boolean): ToolImpl {
  return tool({
    title: frozen ? 'Freeze an app' : 'Unfreeze an app',
    description: frozen
      ? 'Hold every sync of the App, manual and automated, until app_unfreeze; health still updates.'
      : 'Allow syncs of the App again.',
    input: AppRefInput,
    async run(s, principal, args) {
      const app = await run(s, freezeApp, principal, { ...args, frozen });
      return { frozen, name: app.metadata.name };
    },
  });
}

/** Every tool of the catalogue; TypeScript checks none is missing. */
export const TOOLS: { [K in ToolName]: ToolImpl } = {
  app_list: tool({
    title: 'List apps',
    description:
      'Apps of your organization you may read, one compact row each (name, namespace, cluster, source type, sync status, health, revision, frozen). Filter by destination namespace, sync status or health.',
    input: Type.Object(
      {
        namespace: Type.Optional(Namespace),
        sync_status: Type.Optional(
          Type.Union(['Synced', 'OutOfSync', 'Syncing', 'Unknown'].map((v) => Type.Literal(v))),
        ),
        health: Type.Optional(
          Type.Union(['Healthy', 'Degraded', 'Progressing', 'Missing', 'Unknown'].map((v) => Type.Literal(v))),
        ),
      },
      { additionalProperties: false },
    ),
    async run(s, principal, args) {
      const page = await run(s, listApps, principal, parseListQuery({}));
      const rows = page.items.map((json) => JSON.parse(json.toString('utf8')) as ReturnType<typeof appView>);
      const apps = rows
        .filter((a) => args.namespace === undefined || a.namespace === args.namespace)
        .filter((a) => args.sync_status === undefined || a.sync_status === args.sync_status)
        .filter((a) => args.health === undefined || a.health === args.health)
        .map(summary);
      return { apps };
    },
  }),
  app_get: tool({
    title: 'Get an app',
    description:
      'One App: source, sync policy, destination, sync status, health, revision, resources, conditions, the Apps it depends on (depends_on) and, while one of them is not Synced and Healthy, which and why (blocked_by: it does not sync meanwhile).',
    input: AppRefInput,
    run: async (s, principal, args) => appView(await run(s, getApp, principal, args)),
  }),
  app_status: tool({
    title: 'App status',
    description:
      'Sync status, health, revision, the last operation of an App and the dependencies keeping it from syncing (blocked_by). With wait (e.g. "60s", at most 120s) it blocks until the App is Synced and Healthy, Degraded, Unknown, stalled, or its operation failed or is held.',
    input: Type.Object(
      { namespace: Namespace, name: Name, wait: Type.Optional(Type.String({ pattern: '^[0-9.]+(ms|s|m)?$' })) },
      { additionalProperties: false },
    ),
    run: async (s, principal, args, signal) =>
      statusView(await run(s, appStatus, principal, { ...args, waitMs: waitMsOf(args.wait), signal })),
  }),
  app_events: tool({
    title: 'App events',
    description: 'Kubernetes events of the App and its workloads, newest first, at most 50.',
    input: AppRefInput,
    run: async (s, principal, args) => ({ events: await run(s, appEvents, principal, args) }),
  }),
  app_history: tool({
    title: 'App history',
    description:
      'The revision an App runs and the revisions it ran before, newest first (rollback targets); `revisions` gives each with its commit subject, author and date (Git Apps) or tag (image Apps) where known.',
    input: AppRefInput,
    run: (s, principal, args) => run(s, appHistory, principal, args),
  }),
  app_approvals: tool({
    title: 'App approvals',
    description:
      "The approvals of the App's held sync: who requested it (who may not approve it), who approved, how many are needed, who may still approve (roles, teams, users) and when the held sync expires.",
    input: AppRefInput,
    run: async (s, principal, args) => ({ ...(await run(s, appApprovals, principal, args)) }),
  }),
  app_windows: tool({
    title: 'App delivery windows',
    description:
      "Whether the App's delivery windows (its own, its cluster's, its org's) let a sync run now; when not, the blocking window, why (deny, or outside every allow window) and when it may open.",
    input: AppRefInput,
    run: async (s, principal, args) => ({ ...(await run(s, appWindows, principal, args)) }),
  }),
  app_diff: tool({
    title: 'Diff an app',
    description:
      'What a sync would change: sync status, drift, revisions, counts of same/changed/missing/extra objects, the objects that differ (at most 200) and their unified diff (live → desired, at most 64 KiB; truncated says when cut). Secret values are masked. With revision (a branch, tag, commit id or refs/pull/N/head of the App’s Git repository): what a sync of that ref would change, a preview before merge; nothing is written.',
    input: Type.Object(
      {
        namespace: Namespace,
        name: Name,
        revision: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 255,
            pattern: '^[A-Za-z0-9_./-]+$',
            description: 'a ref to preview instead of the observed head',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    run: async (s, principal, args) => diffDigest(await run(s, diffApp, principal, args)),
  }),
  preview: tool({
    title: 'Preview a ref of a repository',
    description:
      'What a branch, tag, commit id or refs/pull/N/head of a Git repository would change before it is merged (POST /preview): every App you may read built from that repository, rendered at the ref and dry-run applied against live, and every App an AppSet reading that repository would generate there (lifecycle added: a new App, all its objects added; removed: an App the AppSet would delete, its objects removed), each with its AppSet; counts, the objects that change (at most 200) and a Markdown summary fit for a pull-request comment (at most 64 KiB). Nothing is written.',
    input: Type.Object(
      {
        repoURL: Type.String({ minLength: 1, maxLength: 2048, description: 'the Git repository URL' }),
        revision: Type.String({
          minLength: 1,
          maxLength: 255,
          pattern: '^[A-Za-z0-9_./-]+$',
          description: 'a branch, tag, commit id or refs/pull/N/head of that repository',
        }),
      },
      { additionalProperties: false },
    ),
    run: async (s, principal, args) => previewDigest(await run(s, previewRepository, principal, args)),
  }),
  app_logs: tool({
    title: 'App logs',
    description: `The last lines of one of the App's Pods (default: a Healthy one, the newest), timestamped: tail lines (default 100, at most ${LOG_TOOL_TAIL_MAX}), at most 64 KiB (the newest kept; truncated says when cut). Never follows.`,
    input: Type.Object(
      {
        namespace: Namespace,
        name: Name,
        pod: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
        container: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
        tail: Type.Optional(Type.Integer({ minimum: 1, maximum: LOG_TOOL_TAIL_MAX, default: 100 })),
        since: Type.Optional(Type.String({ maxLength: 32, pattern: '^([0-9]+(ms|s|m|h))+$', description: 'e.g. 10m' })),
      },
      { additionalProperties: false },
    ),
    async run(s, principal, args, signal) {
      const hangup = new AbortController();
      const stop = () => hangup.abort();
      signal.addEventListener('abort', stop, { once: true });
      try {
        const log = await run(s, appLogs, principal, {
          namespace: args.namespace,
          name: args.name,
          query: {
            ...(args.pod ? { pod: args.pod } : {}),
            ...(args.container ? { container: args.container } : {}),
            ...(args.since ? { since: args.since } : {}),
            tail: String(args.tail ?? 100),
          },
          signal: hangup.signal,
        });
        const { lines, truncated } = await readLogTail(log.stream);
        return { pod: log.pod, container: log.container, lines, truncated };
      } finally {
        signal.removeEventListener('abort', stop);
        hangup.abort();
      }
    },
  }),
  app_sync: tool({
    title: 'Sync an app',
    description:
      'Request a sync to the source head; answers the operation id. Follow it with app_status and wait. Refused while another operation is pending, or while a delivery window blocks syncs (see app_windows) unless override_windows is true (deployment:manage; audited).',
    input: Type.Object(
      {
        namespace: Namespace,
        name: Name,
        override_windows: Type.Optional(Type.Boolean({ description: 'run once even though a delivery window blocks' })),
      },
      { additionalProperties: false },
    ),
    run: async (s, principal, args) => ({ ...(await run(s, ops.syncApp, principal, args)) }),
  }),
  app_deploy: tool({
    title: 'Deploy an app',
    description:
      'Re-resolve the source live and apply it; image apps may pass a new tag. Refused while another operation is pending.',
    input: Type.Object(
      { namespace: Namespace, name: Name, tag: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })) },
      { additionalProperties: false },
    ),
    run: async (s, principal, args) => ({ ...(await run(s, ops.deployApp, principal, args)) }),
  }),
  app_rollback: tool({
    title: 'Roll an app back',
    description:
      'Apply a revision from app_history instead of the source head. With hold, the App stays at it (automated sync and pushes do not move it) until app_release.',
    input: Type.Object(
      {
        namespace: Namespace,
        name: Name,
        revision: Type.String({ minLength: 1, maxLength: 200 }),
        hold: Type.Optional(Type.Boolean()),
        reason: Type.Optional(Type.String({ maxLength: 500 })),
      },
      { additionalProperties: false },
    ),
    run: async (s, principal, args) => ({ ...(await run(s, ops.rollbackApp, principal, args)) }),
  }),
  app_restart: tool({
    title: 'Restart an app',
    description: 'Restart every workload of the App (rolling restart through a template annotation).',
    input: AppRefInput,
    run: async (s, principal, args) => ({ ...(await run(s, ops.restartApp, principal, args)) }),
  }),
  app_approve: tool({
    title: 'Approve a held sync',
    description:
      'Approve a sync held by requiresApproval (never your own request; only approvers the approval policy names); the last approval the policy needs releases it and applies the staged revision.',
    input: AppRefInput,
    run: async (s, principal, args) => ({ ...(await run(s, ops.approveApp, principal, args)) }),
  }),
  app_terminate: tool({
    title: 'Terminate an operation',
    description:
      'End the requested or running operation of the App (a sync waiting on hooks or waves): it ends Failed, reason Terminated, and its running hooks are stopped.',
    input: AppRefInput,
    run: async (s, principal, args) => ({ ...(await run(s, ops.terminateApp, principal, args)) }),
  }),
  app_release: tool({
    title: 'Release a held rollback',
    description: 'End the hold a rollback with hold put on the App: automated sync moves it to the head again.',
    input: AppRefInput,
    run: async (s, principal, args) => ({ ...(await run(s, ops.releaseApp, principal, args)) }),
  }),
  app_freeze: freezeTool(true),
  app_unfreeze: freezeTool(false),
  app_create_helm_chart: tool({
    title: 'Create an app from a Helm chart',
    description:
      'Create an App that deploys a chart from a Helm repository (https://…, its index.yaml) or an OCI registry (oci://…): `version` is an exact version or a semver range (the newest match is deployed, and a new matching version deploys by itself with automated sync); credentials come from the org repository covering repo_url, or the one named by `repository`. Audited app.create.',
    input: Type.Object(
      {
        name: Name,
        namespace: Namespace,
        cluster: Type.Optional(Type.String({ maxLength: 63, description: 'registered cluster; empty = management' })),
        repo_url: Type.String({ minLength: 1, maxLength: 2048, description: 'chart repository: https:// or oci://' }),
        chart: Type.String({ minLength: 1, maxLength: 250 }),
        version: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'version or semver range' })),
        values: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'chart values' })),
        values_files: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { maxItems: 32 })),
        release_name: Type.Optional(Type.String({ minLength: 1, maxLength: 53 })),
        repository: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'repositoryRef' })),
        automated: Type.Optional(Type.Boolean({ description: 'sync automatically (default false)' })),
        auto_rollback: Type.Optional(
          Type.String({
            pattern: '^([0-9]{1,6}(ms|s|m|h))+$',
            maxLength: 32,
            description:
              'syncPolicy.autoRollback.onDegradedFor: a new revision Degraded this long (e.g. 5m) is rolled back to the last healthy one and held',
          }),
        ),
        depends_on: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: 63 }), {
            maxItems: 32,
            description: 'Apps of the org this one waits for (Synced and Healthy first); a cycle is refused',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    run: (s, principal, args) =>
      createAppOf(
        s,
        principal,
        args,
        {
          type: 'HelmChart',
          helmChart: {
            repoURL: args.repo_url,
            chart: args.chart,
            ...(args.version ? { version: args.version } : {}),
            ...(args.values ? { values: args.values } : {}),
            ...(args.values_files ? { valuesFiles: args.values_files } : {}),
            ...(args.release_name ? { releaseName: args.release_name } : {}),
            ...(args.repository ? { repositoryRef: args.repository } : {}),
          },
        },
        args.depends_on ? { depends_on: args.depends_on.map((name) => ({ name })) } : {},
      ),
  }),
  app_create_from_catalog: tool({
    title: 'Create an app from a catalog template',
    description:
      "Create an App from a template of your organization's catalog (catalog_list shows each template's params and their JSON Schema): params are text, checked against the schema (a refusal names the param and rule). The App follows new versions of the template. Audited app.create.",
    input: Type.Object(
      {
        name: Name,
        namespace: Namespace,
        cluster: Type.Optional(Type.String({ maxLength: 63, description: 'registered cluster; empty = management' })),
        template: Type.String({ minLength: 1, maxLength: 63, description: 'catalog template name' }),
        params: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 4096 }), { description: 'params' })),
        automated: Type.Optional(Type.Boolean({ description: 'sync automatically (default false)' })),
      },
      { additionalProperties: false },
    ),
    run: (s, principal, args) =>
      createAppOf(s, principal, args, {
        type: 'Catalog',
        catalog: { template: args.template, ...(args.params ? { params: args.params } : {}) },
      }),
  }),
  repository_list: tool({
    title: 'List repositories',
    description:
      'The Git and Helm repositories of your organization (name, type, URL, which credentials are set, test status); never a credential.',
    input: Type.Object({}, { additionalProperties: false }),
    async run(s, principal) {
      return { repositories: (await run(s, listRepositories, principal, undefined)).map(repositoryView) };
    },
  }),
  repository_charts: tool({
    title: 'Charts of a Helm repository',
    description:
      'The charts of a registered Helm repository and their versions, newest first (an oci:// repository lists the versions of `chart` only): what app_create_helm_chart can deploy.',
    input: Type.Object(
      {
        repository: Type.String({ minLength: 1, maxLength: 63, description: 'repository name' }),
        chart: Type.Optional(Type.String({ minLength: 1, maxLength: 250 })),
      },
      { additionalProperties: false },
    ),
    async run(s, principal, args) {
      return { charts: await run(s, repositoryCharts, principal, { name: args.repository, chart: args.chart }) };
    },
  }),
  audit_list: tool({
    title: 'Audit log',
    description: 'Audit entries of your organization, newest first (who did what, including through MCP tools).',
    input: Type.Object(
      {
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_PAGE_MAX, default: 50 })),
        offset: Type.Optional(Type.Integer({ minimum: 0 })),
      },
      { additionalProperties: false },
    ),
    async run(s, principal, args) {
      const page = { limit: args.limit ?? 50, offset: args.offset ?? 0 };
      return { entries: await run(s, listAudit, principal, page), ...page };
    },
  }),
  import_dry_run: tool({
    title: 'Import dry-run',
    description:
      'What Argo CD objects (Application, ApplicationSet, AppProject, repository Secrets) and Flux objects (GitRepository, OCIRepository, HelmRepository, Kustomization, HelmRelease, ImageRepository, ImagePolicy), given as YAML text or read from a cluster, would become in svc: per object the App, repository or registry, or why not, field by field, and a summary. Give documents or cluster, not both. Creates nothing (svc import --apply or POST /api/v1/import with apply does).',
    input: Type.Object(
      {
        documents: Type.Optional(
          Type.String({ minLength: 1, maxLength: MAX_IMPORT_TEXT, description: 'YAML documents' }),
        ),
        cluster: Type.Optional(
          Type.String({
            maxLength: 63,
            description:
              'read the objects from this registered cluster (cluster:read on it); empty = the management cluster, read in your org namespace only',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    async run(s, principal, args) {
      if ((args.documents === undefined) === (args.cluster === undefined)) {
        throw new InputError('give documents or cluster, not both');
      }
      const body =
        args.documents !== undefined ? { documents: args.documents } : { from: { cluster: args.cluster ?? '' } };
      const answer = await run(s, importObjects, principal, { ...body, apply: false });
      return { entries: answer.entries, summary: answer.summary, ...(answer.source ? { source: answer.source } : {}) };
    },
  }),
  import_confirm: tool({
    title: 'Confirm an import',
    description:
      "End the take-over of an imported App that is still pending (deployment:manage on it): it prunes and cascades deletion like any App from then on, and the old controller's field manager (argocd-controller, kustomize-controller, helm-controller) is removed from its objects. Answers how many objects were released. Audited app.import.confirm.",
    input: Type.Object({ namespace: Namespace, name: Name }, { additionalProperties: false }),
    run: async (s, principal, args) => ({ ...(await run(s, confirmImport, principal, args)) }),
  }),
  import_undo: tool({
    title: 'Undo an import',
    description:
      "Give a pending imported App back to its old controller (deployment:manage on it; cluster:manage to restore settings): the Argo CD Application's finalizer and automated sync, or the Flux object's suspend, are put back, then the App is deleted leaving every live object in place. Audited app.import.undo.",
    input: Type.Object({ namespace: Namespace, name: Name }, { additionalProperties: false }),
    run: async (s, principal, args) => ({ ...(await run(s, undoImport, principal, args)) }),
  }),
  health_check_list: tool({
    title: 'Health checks',
    description:
      "Your organization's custom health checks (CEL expressions per apiVersion and kind, evaluated in the order in_progress, failed, current); an App's own checks are in its spec.",
    input: Type.Object({}, { additionalProperties: false }),
    async run(s, principal) {
      return { health_checks: (await run(s, listHealthChecks, principal, undefined)).map(healthCheckView) };
    },
  }),
  catalog_list: tool({
    title: 'Catalog templates',
    description:
      "Your organization's catalog: templates (a Git or Helm chart source) with the JSON Schema of their params, from which app_create_from_catalog makes an App.",
    input: Type.Object({}, { additionalProperties: false }),
    async run(s, principal) {
      return { templates: (await run(s, listCatalog, principal, undefined)).map(catalogTemplateView) };
    },
  }),
  delivery_windows: tool({
    title: 'Org delivery windows',
    description:
      "Your organization's delivery windows (allow or deny, a cron schedule read in a time zone, a duration): with any allow window, syncs run only inside one; a deny window always wins. Apps and clusters may add their own (app_windows shows them all).",
    input: Type.Object({}, { additionalProperties: false }),
    run: async (s, principal) => ({ ...(await run(s, getOrgWindows, principal, undefined)) }),
  }),
  appset_list: tool({
    title: 'List AppSets',
    description:
      'AppSets of your organization: generators and template of many Apps, with the Apps each generated (sync and health) and what it could not generate.',
    input: Type.Object({}, { additionalProperties: false }),
    async run(s, principal) {
      const sets = (await run(s, listAppSets, principal, undefined)).map(appSetView);
      return {
        appsets: sets.map((a) => ({
          name: a.name,
          apps: a.apps.map((x) => x.name),
          errors: a.errors.length,
          generated: a.generated,
        })),
      };
    },
  }),
  appset_get: tool({
    title: 'Get an AppSet',
    description:
      'One AppSet: its generators, App template, sync policy and strategy, the Apps it generated (sync status and health as last seen), where its rolling sync is (rollout: current step, each step, why it stopped) and its errors. Generated Apps are changed through their AppSet; operations (sync, rollback) work on them directly.',
    input: Type.Object(
      { name: Type.String({ minLength: 1, maxLength: 63, description: 'AppSet name' }) },
      { additionalProperties: false },
    ),
    async run(s, principal, args) {
      return { ...appSetView(await run(s, getAppSet, principal, args.name)) };
    },
  }),
  can_i: tool({
    title: 'Can I',
    description:
      'Whether this API key may exercise a permission (e.g. deployment:sync) at a scope: org, cluster (scope_id = cluster name) or deployment (scope_id = "<cluster>/<namespace>", cluster empty for the management cluster). The same evaluation every call uses.',
    input: Type.Object(
      {
        permission: Type.String({ pattern: '^[a-z]+:[a-z]+$' }),
        scope: Type.Optional(Type.Union([Type.Literal('org'), Type.Literal('cluster'), Type.Literal('deployment')])),
        scope_id: Type.Optional(Type.String({ maxLength: 200 })),
      },
      { additionalProperties: false },
    ),
    async run(s, principal, args) {
      return { allowed: (await run(s, canI, principal, args)).allowed };
    },
  }),
};

/**
 * Creates an App of `source` from a create tool's common arguments (name, namespace, cluster, sync policy) and
 * `extra` request fields; answers what every create tool answers.
 */
async function createAppOf(
  s: Parameters<typeof run>[0],
  principal: Parameters<typeof run>[2],
  args: { name: string; namespace: string; cluster?: string | undefined } & Parameters<typeof syncPolicyOf>[0],
  source: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const app = await run(s, createApp, principal, {
    name: args.name,
    namespace: args.namespace,
    ...(args.cluster ? { cluster: args.cluster } : {}),
    source,
    ...syncPolicyOf(args),
    ...extra,
  });
  return { created: true, name: app.metadata.name, namespace: app.spec.destination.namespace };
}

/** The create request's sync_policy from a create tool's arguments, if they set any of it. */
function syncPolicyOf(args: { automated?: boolean | undefined; auto_rollback?: string | undefined }) {
  const policy = {
    ...(args.automated ? { automated: true } : {}),
    ...(args.auto_rollback ? { autoRollback: { onDegradedFor: args.auto_rollback } } : {}),
  };
  return Object.keys(policy).length > 0 ? { sync_policy: policy } : {};
}
