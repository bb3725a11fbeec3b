/**
 * Authentication of the internal routes (`/internal/*`), which only the operator may call (docs/compatibility.md,
 * "Internal channel"). Two credentials are accepted, as `Authorization: Bearer <token>`:
 * - the shared secret SVC_OPERATOR_TOKEN (compared in constant time), for an operator outside Kubernetes;
 * - a Kubernetes ServiceAccount token, verified with a TokenReview against the management cluster, whose username
 *   is in SVC_OPERATOR_SERVICE_ACCOUNTS.
 * User credentials (a session cookie, an API key) are valid elsewhere but not here: 403. No credential, or one
 * that is not valid anywhere: 401.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ForbiddenError, UnauthenticatedError } from '../core/errors.ts';
import { API_KEY_PREFIX } from '../store/api-keys.ts';
import type { Authenticator, Credentials } from './authenticator.ts';

/** The verdict of a TokenReview (see src/kube/token-review.ts). */
export type TokenReviewer = (token: string) => Promise<{ authenticated: boolean; username?: string }>;

export interface OperatorAuthDeps {
  /** The shared secret; undefined = not accepted. */
  operatorToken: string | undefined;
  /** ServiceAccount usernames (`system:serviceaccount:<ns>:<name>`) accepted after a TokenReview. */
  serviceAccounts: readonly string[];
  /** TokenReview against the management cluster; undefined without one (ServiceAccount tokens are then refused). */
  reviewToken: TokenReviewer | undefined;
  /** The user authenticator, to tell a user's credential (403) from an invalid one (401). */
  users: Authenticator;
}

/** Who called an internal route. */
export interface OperatorIdentity {
  kind: 'token' | 'serviceaccount';
  /** The ServiceAccount username, for `serviceaccount`. */
  username?: string;
}

/** How long a successful TokenReview is trusted for the same token (a push burst needs one review, not one per App). */
const REVIEW_TTL_MS = 60_000;
const REVIEW_CACHE_MAX = 128;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export class OperatorAuthenticator {
  readonly #deps: OperatorAuthDeps;
  readonly #tokenDigest: Buffer | undefined;
  /** sha256(token) hex → ServiceAccount username and expiry; only allowed identities are kept. */
  readonly #reviewed = new Map<string, { username: string; expiresAt: number }>();

  constructor(deps: OperatorAuthDeps) {
    this.#deps = deps;
    this.#tokenDigest = deps.operatorToken === undefined ? undefined : digest(deps.operatorToken);
  }

  /** The operator behind `creds`; throws UnauthenticatedError (401) or ForbiddenError (403). */
  async authenticate(creds: Credentials, now = Date.now()): Promise<OperatorIdentity> {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(creds.authorization ?? '')?.[1];
    if (bearer === undefined) {
      if (creds.cookie !== undefined) await this.#refuseUser(creds);
      throw new UnauthenticatedError('the operator’s credential is required');
    }
    // Digests have equal length, so the comparison time does not depend on the token's length either.
    if (this.#tokenDigest && timingSafeEqual(digest(bearer), this.#tokenDigest)) return { kind: 'token' };
    if (bearer.startsWith(API_KEY_PREFIX)) await this.#refuseUser(creds);
    return { kind: 'serviceaccount', username: await this.#serviceAccount(bearer, now) };
  }

  /** Throws 403 when `creds` authenticate a user, 401 when they authenticate nobody. */
  async #refuseUser(creds: Credentials): Promise<never> {
    await this.#deps.users.authenticate(creds);
    throw new ForbiddenError('internal routes accept only the operator’s credential, not a user’s session or API key');
  }

  async #serviceAccount(token: string, now: number): Promise<string> {
    const key = digest(token).toString('hex');
    const cached = this.#reviewed.get(key);
    if (cached && cached.expiresAt > now) return cached.username;
    this.#reviewed.delete(key);
    if (!this.#deps.reviewToken) throw new UnauthenticatedError('invalid operator credential');
    const review = await this.#deps.reviewToken(token);
    if (!review.authenticated || !review.username) throw new UnauthenticatedError('invalid operator credential');
    if (!this.#deps.serviceAccounts.includes(review.username)) {
      throw new ForbiddenError(`${review.username} is not an operator ServiceAccount (SVC_OPERATOR_SERVICE_ACCOUNTS)`);
    }
    if (this.#reviewed.size >= REVIEW_CACHE_MAX) this.#reviewed.delete(this.#reviewed.keys().next().value as string);
    this.#reviewed.set(key, { username: review.username, expiresAt: now + REVIEW_TTL_MS });
    return review.username;
  }
}
