/**
 * Org roles as Better Auth's organization plugin stores them (lowercase names on the member row) and as svc shows
 * and evaluates them (Owner, Admin, Contributor, Viewer).
 */
import type { OrgRole } from '../core/permissions.ts';

/** Better Auth role name → svc role. `member` is Better Auth's default for invitations; it means Contributor. */
const FROM_MEMBER_ROLE: Record<string, OrgRole> = {
  owner: 'Owner',
  admin: 'Admin',
  contributor: 'Contributor',
  member: 'Contributor',
  viewer: 'Viewer',
};
const RANK: Record<OrgRole, number> = { Owner: 4, Admin: 3, Contributor: 2, Viewer: 1 };

/**
 * The svc role of a member row's role field. Better Auth allows several roles joined by commas; the highest wins.
 * Unknown names count for nothing; undefined when none is known.
 */
export function orgRoleOfMember(memberRole: string): OrgRole | undefined {
  let best: OrgRole | undefined;
  for (const part of memberRole.split(',')) {
    const role = FROM_MEMBER_ROLE[part.trim().toLowerCase()];
    if (role && (!best || RANK[role] > RANK[best])) best = role;
  }
  return best;
}
