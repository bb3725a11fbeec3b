/** How a registry looks in the API (docs/api.md "Registries"): never its password or notification token. */
import type { Static } from 'typebox';
import type { RegistryRecord } from '../../store/registries.ts';
import type { Registry } from './contract.ts';

/** Path of a registry's notification endpoint below the public URL (see ../routes/registry-notifications.ts). */
export const notificationPath = (id: string) => `/api/v1/registries/${id}/notifications`;

/** The API view of a registry: never the password or the notification token. */
export function registryView(r: RegistryRecord, publicURL: string): Static<typeof Registry> {
  return {
    id: r.id,
    name: r.name,
    host: r.host,
    insecure: r.insecure,
    ca: r.ca,
    username: r.username,
    has_password: r.hasPassword,
    status: r.status,
    status_detail: r.statusDetail,
    last_tested_at: r.lastTestedAt,
    notification_url: `${publicURL}${notificationPath(r.id)}`,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
