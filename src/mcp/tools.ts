/**
 * What each MCP tool of the catalogue (./catalogue.ts) does: its input schema (TypeBox) and a run function that calls
 * the same service, permission check and audit entry as the REST route it mirrors (src/api/apps/*-service.ts), with
 * the caller's key owner as the actor and the tool's name carried into audit details. Results are plain objects;
 * ./server.ts wraps them for the protocol and strips credentials.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { Actor } from '../api/actor.ts';
import { type LiveReads, liveReadsOf } from '../api/apps/live-reads.ts';
import { AppOperations } from '../api/apps/operation-service.ts';
import { AppService } from '../api/apps/service.ts';
import { AppStatusService, waitMsOf } from '../api/apps/status-service.ts';
import { appView, statusView } from '../api/apps/view.ts';
import { requirePermission } from '../api/context.ts';
import { HealthCheckService } from '../api/health-checks/service.ts';
import { healthCheckView } from '../api/routes/health-checks.ts';
import { parseScope } from '../api/routes/scope-input.ts';
import type { ApiServices } from '../api/services.ts';
import { canI } from '../auth/rbac.ts';
import type { ToolName } from '../core/mcp-tools.ts';
import { AUDIT_PAGE_MAX } from '../store/audit.ts';
import { diffDigest, LOG_TOOL_TAIL_MAX, readLogTail } from './live.ts';

/** The services the tools call, built once per server. */
export interface ToolServices {
  api: ApiServices;
  apps: AppService;
  operations: AppOperations;
  status: AppStatusService;
  /** Diff, resource tree and logs: the same instances the REST routes use. */
  live: LiveReads;
  healthChecks: HealthCheckService;
}

/** Builds the services the tools call from the API server's. */
export function toolServices(api: ApiServices): ToolServices {
  return {
    api,
    apps: new AppService(api),
    operations: new AppOperations(api),
    status: new AppStatusService(api),
    live: liveReadsOf(api),
    healthChecks: new HealthCheckService(api),
  };
}

/** One tool's implementation. */
export interface ToolImpl<S extends TSchema = TSchema> {
  title: string;
  description: string;
  input: S;
  run(services: ToolServices, actor: Actor, args: Static<S>, signal: AbortSignal): Promise<Record<string, unknown>>;
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
    async run(s, actor, args) {
      const app = await s.apps.setFrozen(actor, args, frozen);
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
    async run(s, actor, args) {
      const rows = (await s.apps.listJson(actor)).map(
        (json) => JSON.parse(json.toString('utf8')) as ReturnType<typeof appView>,
      );
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
    description: 'One App: source, sync policy, destination, sync status, health, revision, resources, conditions.',
    input: AppRefInput,
    run: async (s, actor, args) => appView(await s.apps.get(actor, args)),
  }),
  app_status: tool({
    title: 'App status',
    description:
      'Sync status, health, revision and the last operation of an App. With wait (e.g. "60s", at most 120s) it blocks until the App is Synced and Healthy, Degraded, Unknown, stalled, or its operation failed or is held.',
    input: Type.Object(
      { namespace: Namespace, name: Name, wait: Type.Optional(Type.String({ pattern: '^[0-9.]+(ms|s|m)?$' })) },
      { additionalProperties: false },
    ),
    run: async (s, actor, args, signal) => statusView(await s.status.status(actor, args, waitMsOf(args.wait), signal)),
  }),
  app_events: tool({
    title: 'App events',
    description: 'Kubernetes events of the App and its workloads, newest first, at most 50.',
    input: AppRefInput,
    run: async (s, actor, args) => ({ events: await s.status.events(actor, args) }),
  }),
  app_history: tool({
    title: 'App history',
    description: 'The revision an App runs and the revisions it ran before, newest first (rollback targets).',
    input: AppRefInput,
    run: (s, actor, args) => s.status.history(actor, args),
  }),
  app_diff: tool({
    title: 'Diff an app',
    description:
      'What a sync would change: sync status, drift, revisions, counts of same/changed/missing/extra objects, the objects that differ (at most 200) and their unified diff (live → desired, at most 64 KiB; truncated says when cut). Secret values are masked.',
    input: AppRefInput,
    run: async (s, actor, args) => diffDigest(await s.live.diffs.diff(actor, args)),
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
    async run(s, actor, args, signal) {
      const hangup = new AbortController();
      const stop = () => hangup.abort();
      signal.addEventListener('abort', stop, { once: true });
      try {
        const log = await s.live.resources.logs(
          actor,
          args,
          {
            ...(args.pod ? { pod: args.pod } : {}),
            ...(args.container ? { container: args.container } : {}),
            ...(args.since ? { since: args.since } : {}),
            tail: String(args.tail ?? 100),
          },
          hangup.signal,
        );
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
      'Request a sync to the source head; answers the operation id. Follow it with app_status and wait. Refused while another operation is pending.',
    input: AppRefInput,
    run: async (s, actor, args) => ({ ...(await s.operations.sync(actor, args)) }),
  }),
  app_deploy: tool({
    title: 'Deploy an app',
    description:
      'Re-resolve the source live and apply it; image apps may pass a new tag. Refused while another operation is pending.',
    input: Type.Object(
      { namespace: Namespace, name: Name, tag: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })) },
      { additionalProperties: false },
    ),
    run: async (s, actor, args) => ({ ...(await s.operations.deploy(actor, args, args.tag)) }),
  }),
  app_rollback: tool({
    title: 'Roll an app back',
    description: 'Apply a revision from app_history instead of the source head.',
    input: Type.Object(
      { namespace: Namespace, name: Name, revision: Type.String({ minLength: 1, maxLength: 200 }) },
      { additionalProperties: false },
    ),
    run: async (s, actor, args) => ({ ...(await s.operations.rollback(actor, args, args.revision)) }),
  }),
  app_restart: tool({
    title: 'Restart an app',
    description: 'Restart every workload of the App (rolling restart through a template annotation).',
    input: AppRefInput,
    run: async (s, actor, args) => ({ ...(await s.operations.restart(actor, args)) }),
  }),
  app_approve: tool({
    title: 'Approve a held sync',
    description: 'Release a sync held by requiresApproval; it applies the staged revision.',
    input: AppRefInput,
    run: async (s, actor, args) => ({ ...(await s.operations.approve(actor, args)) }),
  }),
  app_freeze: freezeTool(true),
  app_unfreeze: freezeTool(false),
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
    async run(s, actor, args) {
      requirePermission(actor, 'audit:read');
      const limit = args.limit ?? 50;
      const offset = args.offset ?? 0;
      return { entries: await s.api.audit.list(actor.org.id, limit, offset), limit, offset };
    },
  }),
  health_check_list: tool({
    title: 'Health checks',
    description:
      "Your organization's custom health checks (CEL expressions per apiVersion and kind, evaluated in the order in_progress, failed, current); an App's own checks are in its spec.",
    input: Type.Object({}, { additionalProperties: false }),
    async run(s, actor) {
      return { health_checks: (await s.healthChecks.list(actor)).map(healthCheckView) };
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
    async run(_s, actor, args) {
      const { scope, scopeId } = parseScope(args.scope, args.scope_id);
      return { allowed: canI(actor.caller, args.permission, scope, scopeId) };
    },
  }),
};
