/**
 * A chart version pushed to an org's registry (its notifications, ./../routes/registry-notifications.ts) checks the
 * HelmChart Apps on that chart at once: each automated, unfrozen App whose `oci://` source is this registry's host
 * and whose chart is the pushed repository, with a version range the pushed tag satisfies, gets a Sync operation
 * (triggeredBy `svc:chart-push`), so the operator lists the chart anew and deploys the new version without waiting
 * for its next resync; audited `app.sync` with an empty user_id. A version outside an App's range leaves it alone.
 */
import type { AppResource } from '../../core/app-schema.ts';
import { writeOperation } from '../../core/app-state.ts';
import { describeError } from '../../core/errors.ts';
import { newestMatching } from '../../core/helm-chart.ts';
import type { AuditStore } from '../../store/audit.ts';
import { operationIO } from '../apps/scope.ts';
import type { KubeApps } from '../kube/apps-repo.ts';

/** `spec.operation.triggeredBy` of the syncs a chart push requests. */
export const CHART_PUSH_IDENTITY = 'svc:chart-push';

/** Whether `app` is a HelmChart App on `repository` (a path on the registry `host`) whose range allows `tag`. */
export function chartPushMatches(app: AppResource, host: string, repository: string, tag: string): boolean {
  const chart = app.spec.source.type === 'HelmChart' ? app.spec.source.helmChart : undefined;
  if (!chart || app.spec.freeze || app.spec.syncPolicy?.automated !== true || app.spec.operation) return false;
  const m = /^oci:\/\/([^/]+)(?:\/(.*?))?\/*$/i.exec(chart.repoURL);
  if (!m || m[1]?.toLowerCase() !== host.toLowerCase()) return false;
  const path = m[2] ? `${m[2]}/${chart.chart}` : chart.chart;
  if (path !== repository) return false;
  return newestMatching([tag.replaceAll('_', '+')], chart.version ?? '*') !== undefined;
}

/** Requests a Sync of the HelmChart Apps a pushed chart tag concerns (see the module comment); their names. */
export async function syncPushedChart(
  deps: {
    kube: Pick<KubeApps, 'listEntries' | 'get' | 'mergePatch'>;
    audit: AuditStore;
    logger: { info(obj: object, msg: string): void };
  },
  registry: { orgId: string; orgNamespace: string; host: string },
  pushed: { repository: string; tag: string },
): Promise<string[]> {
  const ns = registry.orgNamespace;
  const synced: string[] = [];
  for (const { app } of await deps.kube.listEntries(ns)) {
    if (!chartPushMatches(app, registry.host, pushed.repository, pushed.tag)) continue;
    try {
      const id = await writeOperation(operationIO(deps.kube, ns, app.metadata.name), app, {
        kind: 'Sync',
        triggeredBy: CHART_PUSH_IDENTITY,
      });
      await deps.audit.record({
        orgId: registry.orgId,
        userId: '',
        action: 'app.sync',
        resourceType: 'app',
        ...(app.metadata.uid ? { resourceId: app.metadata.uid } : {}),
        resourceName: app.metadata.name,
        details: {
          namespace: app.spec.destination.namespace,
          operation_id: id,
          chart: pushed.repository,
          version: pushed.tag,
          trigger: 'notification',
        },
      });
      synced.push(app.metadata.name);
    } catch (err) {
      // A pending operation (409) or an App gone meanwhile: its next resync lists the chart anyway.
      deps.logger.info({ app: `${ns}/${app.metadata.name}`, err: describeError(err) }, 'chart push: no sync requested');
    }
  }
  return synced;
}
