/**
 * Writes that must land together: a state change and its audit entry (contract §6.4: every state-changing call is
 * recorded). Either both commit or neither does, so a failed audit write never leaves an unaudited API key or role
 * binding behind.
 */
import type { Kysely } from 'kysely';
import { ApiKeyStore } from './api-keys.ts';
import { AuditStore } from './audit.ts';
import { ClusterStore } from './clusters.ts';
import type { Tables } from './database.ts';
import { DeliveryStore } from './deliveries.ts';
import { IncidentStore } from './incidents.ts';
import { ObservationStore } from './observations.ts';
import { EventStore } from './ops-events.ts';
import { RemediationStore } from './remediations.ts';
import { RoleBindingStore } from './role-bindings.ts';
import { SecretStoreStore } from './secret-stores.ts';
import { TeamStore } from './teams.ts';
import { WebhookStore } from './webhooks.ts';

/** The stores, bound to one transaction. */
export interface TransactionStores {
  /** The transaction itself, for stores not listed here (built on it, they write inside the transaction). */
  db: Kysely<Tables>;
  apiKeys: ApiKeyStore;
  audit: AuditStore;
  bindings: RoleBindingStore;
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  events: EventStore;
  incidents: IncidentStore;
  remediations: RemediationStore;
  observations: ObservationStore;
  clusters: ClusterStore;
  secretStores: SecretStoreStore;
  teams: TeamStore;
}

/**
 * Runs `fn` in one database transaction with stores bound to it: commits when `fn` resolves, rolls back and rethrows
 * when it (or any write in it) fails. Keep `fn` to database work: the transaction holds a connection (and, on
 * SQLite, the one connection) until it ends.
 */
export function inTransaction<T>(db: Kysely<Tables>, fn: (stores: TransactionStores) => Promise<T>): Promise<T> {
  return db.transaction().execute((trx) =>
    fn({
      db: trx,
      apiKeys: new ApiKeyStore(trx),
      audit: new AuditStore(trx),
      bindings: new RoleBindingStore(trx),
      webhooks: new WebhookStore(trx),
      deliveries: new DeliveryStore(trx),
      events: new EventStore(trx),
      incidents: new IncidentStore(trx),
      remediations: new RemediationStore(trx),
      observations: new ObservationStore(trx),
      clusters: new ClusterStore(trx),
      secretStores: new SecretStoreStore(trx),
      teams: new TeamStore(trx),
    }),
  );
}
