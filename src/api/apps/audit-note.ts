/** The audit entry of a change to an App, whoever made it (a use-case, the tag poller). */
import type { AppResource } from '../../core/app-schema.ts';
import type { AuditNote } from '../../store/audit.ts';

/** What an audit entry says about an App `action`: the App, its destination, and `details`. */
export function appAuditNote(action: string, app: AppResource, details: Record<string, unknown> = {}): AuditNote {
  return {
    action,
    resourceType: 'app',
    ...(app.metadata.uid ? { resourceId: app.metadata.uid } : {}),
    resourceName: app.metadata.name,
    details: { namespace: app.spec.destination.namespace, cluster: app.spec.destination.cluster ?? '', ...details },
  };
}
