/**
 * Who acts, for Better Auth's hooks. When the API calls the auth component on a caller's behalf (POST /teams calls
 * Better Auth's createTeam without a session: svc has already authorized the caller), the hooks that audit the
 * change learn the acting user from here, so the audit entry names the caller and not an empty user.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const acting = new AsyncLocalStorage<string>();

/** Runs `fn` with `userId` as the acting user of every auth-component hook it triggers. */
export function actingAs<T>(userId: string, fn: () => Promise<T>): Promise<T> {
  return acting.run(userId, fn);
}

/** The acting user set by `actingAs` around the current call, or undefined. */
export function actingUserId(): string | undefined {
  return acting.getStore();
}
