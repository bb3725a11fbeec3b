/**
 * Push events: parsing of GitHub-style (`gitA`) and GitLab-style (`gitB`) push payloads, signature checks, and
 * the App matching rule of contract §4.6 step 3. Pure.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppResource } from '../../core/app-schema.ts';

/** `gitA`: GitHub-style push events; `gitB`: GitLab push events. */
export type Provider = 'gitA' | 'gitB';

/** The parts of a push the receiver uses. */
export interface PushEvent {
  /** Clone URLs named by the event; an App matches when its repoURL equals one of them exactly. */
  urls: string[];
  ref: string;
  after: string;
  pusher: string;
}

/** Parses a push body; undefined when it is not a usable push event (the receiver answers 400). */
export function parsePush(provider: Provider, body: unknown): PushEvent | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const obj = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
  const ref = str(b['ref']);
  if (!ref) return undefined;
  if (provider === 'gitA') {
    const url = str(obj(b['repository'])['clone_url']);
    if (!url) return undefined;
    const pusher = obj(b['pusher']);
    return {
      urls: [url],
      ref,
      after: str(b['after']) ?? '',
      pusher: str(pusher['name']) ?? str(pusher['email']) ?? '',
    };
  }
  // GitLab: project.git_http_url (newer) or repository.git_http_url (older payloads).
  const project = obj(b['project']);
  const repo = obj(b['repository']);
  const urls = [str(project['git_http_url']), str(repo['git_http_url'])].filter((u): u is string => Boolean(u));
  if (urls.length === 0) return undefined;
  return { urls: [...new Set(urls)], ref, after: str(b['after']) ?? '', pusher: str(b['user_username']) ?? '' };
}

/** Contract §4.6 step 3: Git source, exact repoURL, `refs/heads/<branch>`, webhook enabled. */
export function matchesPush(app: AppResource, push: PushEvent): boolean {
  const git = app.spec.source.git;
  if (app.spec.source.type !== 'Git' || !git) return false;
  if (app.spec.webhook?.enabled !== true) return false;
  if (!push.urls.includes(git.repoURL)) return false;
  return push.ref === `refs/heads/${git.branch || 'main'}`;
}

/** Checks a delivery against the App's secret: GitHub's `X-Hub-Signature-256`, GitLab's `X-Gitlab-Token`. */
export function verifyDelivery(
  provider: Provider,
  secret: string,
  rawBody: Buffer,
  header: string | undefined,
): boolean {
  if (!header) return false;
  const expected =
    provider === 'gitA' ? `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}` : secret;
  const a = Buffer.from(expected);
  const b = Buffer.from(header);
  return a.length === b.length && timingSafeEqual(a, b);
}
