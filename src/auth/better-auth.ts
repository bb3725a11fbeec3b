/**
 * The auth component (the platform app's half that svc serves under /api/auth/*): Better Auth with email and
 * password, and its organization plugin with teams. Orgs carry the roles owner, admin, contributor (alias member)
 * and viewer; creating an org creates its App namespace `org-<slug>` through the `onOrganizationCreated` hook, and
 * every team it creates (an org's default team included) is audited as `team.create` (contract §6.4), every team it
 * removes as `team.delete` (the team's role bindings go with it). Renaming teams and changing their members happen
 * through svc's /api/v1/teams (svc's RBAC, audited there): Better Auth's own routes for those are disabled (404).
 * Better Auth shares svc's Kysely instance, so its tables live in the same database and migrate under the same lock.
 */
import { APIError, type BetterAuthOptions, betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { createAccessControl } from 'better-auth/plugins/access';
import { getOrgAdapter, type OrganizationOptions, organization } from 'better-auth/plugins/organization';
import { adminAc, defaultStatements, memberAc, ownerAc } from 'better-auth/plugins/organization/access';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import { orgNamespace } from '../core/names.ts';
import type { AuditStore } from '../store/audit.ts';
import type { Store } from '../store/database.ts';
import { RoleBindingStore } from '../store/role-bindings.ts';
import { actingUserId } from './acting-user.ts';

const ac = createAccessControl(defaultStatements);
const roles = {
  owner: ac.newRole(ownerAc.statements),
  admin: ac.newRole(adminAc.statements),
  contributor: ac.newRole(memberAc.statements),
  member: ac.newRole(memberAc.statements),
  viewer: ac.newRole(memberAc.statements),
};

/** Mount point of the auth component. */
export const AUTH_BASE_PATH = '/api/auth';

/**
 * Better Auth routes svc turns off: team renames and team membership go through /api/v1/teams, which checks svc's
 * permissions and audits the change (these routes' hooks cannot tell who acted).
 */
export const DISABLED_AUTH_PATHS = [
  '/organization/update-team',
  '/organization/add-team-member',
  '/organization/remove-team-member',
];

export interface AuthComponentOptions {
  config: Pick<Config, 'publicURL' | 'trustedOrigins' | 'authSecret' | 'sessionCookieName' | 'production'>;
  store: Store;
  /** Called after an org is created, with its slug; creates the org's namespace. A throw is logged by Better Auth. */
  onOrganizationCreated?: (org: { id: string; slug: string }) => Promise<void>;
  /** Where `team.create` is recorded; without it (schema migration only) nothing is audited. */
  audit?: AuditStore;
}

function authOptions({ config, store, onOrganizationCreated, audit }: AuthComponentOptions) {
  return {
    appName: 'svc',
    baseURL: config.publicURL,
    // Better Auth always trusts baseURL's origin; these are the other loopback spellings of a local default.
    trustedOrigins: config.trustedOrigins,
    basePath: AUTH_BASE_PATH,
    secret: config.authSecret,
    database: {
      db: store.db as unknown as Kysely<unknown>,
      type: store.kind === 'postgres' ? ('postgres' as const) : ('sqlite' as const),
    },
    emailAndPassword: { enabled: true },
    rateLimit: { enabled: config.production },
    telemetry: { enabled: false },
    disabledPaths: DISABLED_AUTH_PATHS,
    advanced: {
      cookies: { session_token: { name: config.sessionCookieName } },
    },
    plugins: [organization(organizationOptions({ store, audit, onOrganizationCreated }))],
  } satisfies BetterAuthOptions;
}

/**
 * The organization plugin's options (also what `getOrgAdapter` needs to reach teams the way the plugin does).
 * Hooks audit as the session's user, else as the acting user of an API call (./acting-user.ts).
 */
export function organizationOptions({
  store,
  audit,
  onOrganizationCreated,
}: Pick<AuthComponentOptions, 'store' | 'audit' | 'onOrganizationCreated'>) {
  const actor = (user: { id: string } | undefined) => user?.id ?? actingUserId() ?? '';
  return {
    ac,
    roles,
    teams: { enabled: true },
    organizationHooks: {
      // Refuse slugs that cannot name the org's namespace before anything is stored.
      beforeCreateOrganization: async ({ organization: org }) => {
        try {
          orgNamespace(String(org.slug ?? ''));
        } catch {
          throw new APIError('BAD_REQUEST', {
            message: 'organization slug must be a DNS-1123 label of at most 59 characters',
          });
        }
      },
      afterCreateOrganization: async ({ organization: org }) => {
        await onOrganizationCreated?.({ id: org.id, slug: org.slug });
      },
      // Runs for teams created through the API and for the default team of a new org. A failed write fails the
      // request (the team exists, but the caller learns that something went wrong) rather than going unaudited
      // silently.
      afterCreateTeam: async ({ team, user, organization: org }) => {
        await audit?.record({
          orgId: org.id,
          userId: actor(user),
          action: 'team.create',
          resourceType: 'team',
          resourceId: team.id,
          resourceName: team.name,
        });
      },
      // A removed team's bindings would otherwise linger and grant a future team with the same id nothing, but
      // clutter the list; they are removed with it.
      afterDeleteTeam: async ({ team, user, organization: org }) => {
        const removed = await new RoleBindingStore(store.db).unbindSubject(org.id, 'team', team.id);
        await audit?.record({
          orgId: org.id,
          userId: actor(user),
          action: 'team.delete',
          resourceType: 'team',
          resourceId: team.id,
          resourceName: team.name,
          details: { bindings_removed: removed },
        });
      },
    },
  } satisfies OrganizationOptions;
}

/** Builds the Better Auth instance. */
export function createAuthComponent(options: AuthComponentOptions) {
  return betterAuth(authOptions(options));
}

export type AuthComponent = ReturnType<typeof createAuthComponent>;

/**
 * Creates or updates Better Auth's tables (user, session, account, verification, organization, member,
 * invitation, team, teamMember) with its own migration planner. Run it inside the store's migration lock.
 */
export async function migrateAuthSchema(options: AuthComponentOptions): Promise<void> {
  const { runMigrations } = await getMigrations(authOptions(options));
  await runMigrations();
}

/**
 * The organization plugin's data layer for the component's database (teams, members), for svc's /teams routes: the
 * same writes Better Auth's own team routes make (membership keys, member counts), without its session checks (svc
 * has authorized the caller).
 */
export async function orgAdapterOf(auth: AuthComponent) {
  // $context is typed with these exact options; the adapter takes the general AuthContext it is an instance of.
  return getOrgAdapter((await auth.$context) as unknown as Parameters<typeof getOrgAdapter>[0]);
}
