/**
 * The auth component's routes the UI calls (/api/auth/*, served by Better Auth: sign-in, sessions, organizations,
 * members, invitations), typed here because svc's API document (and so the generated client) covers /api/v1 only.
 * The one place the UI names them; errors are ApiErrors as for svc's own routes.
 */
import { apiError } from './client.ts';

/** The signed-in session and user, or null when signed out. */
export interface Session {
  session: { id: string; activeOrganizationId?: string | null };
  user: { id: string; email: string; name: string };
}

export interface Org {
  id: string;
  name: string;
  slug: string;
}

/** A member of the active org, as the auth component lists them. */
export interface OrgMember {
  id: string;
  userId: string;
  role: string;
  user: { email: string; name: string };
}

export interface Invitation {
  id: string;
  email: string;
  role: string;
  status: string;
  organizationId: string;
  organizationName?: string;
}

/** Sends one request to the auth component; resolves with its parsed JSON answer (undefined when empty). */
async function send<T>(method: 'GET' | 'POST', path: `/api/auth/${string}`, body?: object): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (!res.ok) {
    const error = (parsed as { error?: unknown } | undefined)?.error;
    throw apiError({
      status: res.status,
      statusText: res.statusText,
      message: typeof error === 'string' ? error : undefined,
      body: parsed,
    });
  }
  return parsed as T;
}

/** The auth component's routes, one function each. */
export const auth = {
  session: () => send<Session | null>('GET', '/api/auth/get-session'),
  signIn: (b: { email: string; password: string }) => send<unknown>('POST', '/api/auth/sign-in/email', b),
  signUp: (b: { email: string; password: string; name: string }) => send<unknown>('POST', '/api/auth/sign-up/email', b),
  signOut: () => send<unknown>('POST', '/api/auth/sign-out', {}),
  orgs: () => send<Org[]>('GET', '/api/auth/organization/list'),
  createOrg: (b: { name: string; slug: string }) => send<Org>('POST', '/api/auth/organization/create', b),
  setActiveOrg: (organizationId: string) =>
    send<unknown>('POST', '/api/auth/organization/set-active', { organizationId }),
  members: () => send<{ members: OrgMember[] }>('GET', '/api/auth/organization/list-members'),
  invitations: () => send<Invitation[]>('GET', '/api/auth/organization/list-invitations'),
  myInvitations: () => send<Invitation[]>('GET', '/api/auth/organization/list-user-invitations'),
  invite: (b: { email: string; role: string }) => send<unknown>('POST', '/api/auth/organization/invite-member', b),
  acceptInvitation: (invitationId: string) =>
    send<unknown>('POST', '/api/auth/organization/accept-invitation', { invitationId }),
};
