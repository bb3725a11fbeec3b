/**
 * /auth/cli-login: the browser half of `svc login --browser`, the loopback flow of native apps (RFC 8252 §7.3)
 * with an API key as what is handed over. The CLI listens on 127.0.0.1:<port> and opens
 * `/api/v1/auth/cli-login?port=…&state=…&name=…` in the user's browser, where the user is signed in (session cookie).
 * GET shows who would be authorized and asks to confirm; the confirming POST (session only, guarded by a token bound
 * to the session and the request) mints the key through the same service as POST /auth/api-keys (audited
 * `apikey.create`) and answers a page whose form posts the key with the state to the CLI's loopback listener. The
 * key never appears in a URL. Pages are HTML: this is for a person in a browser.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../auth/caller.ts';
import { InputError, SvcError } from '../../core/errors.ts';
import { LEVELS, type Level } from '../../core/permissions.ts';
import type { Api } from '../api.ts';
import { mintApiKey } from '../api-keys/use-cases.ts';
import { cliLoginConfirmRoute, cliLoginPageRoute } from '../auth/cli-login-contract.ts';
import type { ApiServices } from '../services.ts';
import { run } from '../use-case.ts';

/** What the CLI sends (query on GET, form fields on POST). */
interface HandoffRequest {
  port: number;
  state: string;
  name: string;
  role: Level;
  expiresDays: number;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` safe inside HTML text and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** The handoff parameters from a query or form; InputError when any is missing or malformed. */
export function parseHandoff(input: Record<string, unknown>): HandoffRequest {
  const port = Number(input['port']);
  const state = String(input['state'] ?? '');
  const name = String(input['name'] ?? 'svc CLI');
  const role = String(input['role'] ?? 'admin');
  const expiresDays = Number(input['expires_days'] ?? 90);
  if (!Number.isInteger(port) || port < 1024 || port > 65535) throw new InputError('port must be 1024..65535');
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(state)) throw new InputError('state must be 16..128 URL-safe characters');
  // Counted in code points, as the document's maxLength counts them.
  if (name.length < 1 || [...name].length > 64 || [...name].some((c) => c.charCodeAt(0) < 32)) {
    throw new InputError('name must be 1..64 printable characters');
  }
  if (!(LEVELS as readonly string[]).includes(role)) throw new InputError(`role must be one of ${LEVELS.join(', ')}`);
  if (!Number.isInteger(expiresDays) || expiresDays < 0 || expiresDays > 3650) {
    throw new InputError('expires_days must be 0..3650');
  }
  return { port, state, name, role: role as Level, expiresDays };
}

/** The confirmation token: binds the POST to the session that saw the page and to this exact request. */
function confirmationToken(secret: string, sessionId: string, h: HandoffRequest): string {
  return createHmac('sha256', secret)
    .update(['cli-login', sessionId, h.port, h.state, h.name, h.role, h.expiresDays].join('\n'))
    .digest('base64url');
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A whole page; `body` is HTML already escaped. */
function page(title: string, body: string, script = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)}</title><style>body{font:16px system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem}
button{font:inherit;padding:.5rem 1.2rem}code{background:#eee;padding:0 .2rem}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}${script}</body></html>`;
}

function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .send(html);
}

/** The page asking to confirm: who is asked for which key, with the confirmation token in its form. */
function confirmPage(handoff: HandoffRequest, actor: Caller, token: string): string {
  const hidden = Object.entries({
    port: handoff.port,
    state: handoff.state,
    name: handoff.name,
    role: handoff.role,
    expires_days: handoff.expiresDays,
    confirm: token,
  })
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(String(v))}">`)
    .join('');
  const expiry = handoff.expiresDays === 0 ? 'never expires' : `expires in ${handoff.expiresDays} days`;
  return page(
    'Log in the svc command line?',
    `<p>The <code>svc</code> command line on <strong>${escapeHtml(handoff.name)}</strong> asks for an API key
to act as <strong>${escapeHtml(actor.user.email)}</strong> in <strong>${escapeHtml(actor.org?.name ?? '')}</strong>,
with role ceiling <strong>${escapeHtml(handoff.role)}</strong>; it ${expiry}. Only continue if you just ran
<code>svc login</code> yourself.</p><form method="post">${hidden}<button type="submit">Authorize</button></form>`,
  );
}

/** The page that posts the minted key to the CLI's loopback listener (never in a URL). */
function handoffPage(handoff: HandoffRequest, key: string): string {
  const callback = `http://127.0.0.1:${handoff.port}/callback`;
  return page(
    'Handing the key to svc…',
    `<form id="handoff" method="post" action="${escapeHtml(callback)}">
<input type="hidden" name="state" value="${escapeHtml(handoff.state)}">
<input type="hidden" name="key" value="${escapeHtml(key)}">
<p>If nothing happens, <button type="submit">send it to svc</button>.</p></form>`,
    '<script>document.getElementById("handoff").submit()</script>',
  );
}

/** The handoff a request asks for, or the 400 page saying why it cannot be one. */
function handoffOf(input: Record<string, unknown>, reply: FastifyReply, title: string): HandoffRequest | undefined {
  try {
    return parseHandoff(input);
  } catch (err) {
    sendPage(reply, 400, page(title, `<p>${escapeHtml((err as Error).message)}</p>`));
    return undefined;
  }
}

/** Registers GET and POST /auth/cli-login (HTML; session cookie; an encapsulated form-body parser for the POST). */
export async function cliLoginRoutes(app: Api, services: ApiServices): Promise<void> {
  const secret = services.config.authSecret;

  /** The signed-in caller with an org, by session cookie only. */
  async function sessionCaller(request: FastifyRequest): Promise<Caller | undefined> {
    try {
      const caller = await services.authenticator.authenticate({
        cookie: request.headers.cookie,
        authorization: undefined,
      });
      return caller.org && caller.kind === 'session' ? caller : undefined;
    } catch {
      return undefined;
    }
  }

  const signInFirst = (reply: FastifyReply) =>
    sendPage(
      reply,
      401,
      page(
        'Sign in to svc first',
        `<p>Sign in at <a href="${escapeHtml(services.config.publicURL)}/">${escapeHtml(services.config.publicURL)}</a>
(with an organization), then reload this page to finish <code>svc login</code>.</p>`,
      ),
    );

  /** Mints the CLI's key as the signed-in user; a page saying why not when it cannot be minted. */
  async function mint(actor: Caller, handoff: HandoffRequest, reply: FastifyReply): Promise<string | undefined> {
    try {
      const request = { name: `svc CLI (${handoff.name})`, role: handoff.role, expires_days: handoff.expiresDays };
      return (await run(services, mintApiKey, { caller: actor }, request)).key;
    } catch (err) {
      if (!(err instanceof SvcError)) throw err;
      sendPage(reply, 403, page('No key minted', `<p>${escapeHtml(err.message)}</p>`));
      return undefined;
    }
  }

  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    scope.get('/auth/cli-login', { config: { public: true }, schema: cliLoginPageRoute }, async (request, reply) => {
      const handoff = handoffOf(request.query, reply, 'Bad login link');
      if (!handoff) return reply;
      const actor = await sessionCaller(request);
      if (!actor) return signInFirst(reply);
      const token = confirmationToken(secret, actor.sessionId ?? '', handoff);
      return sendPage(reply, 200, confirmPage(handoff, actor, token));
    });

    const confirm = { config: { public: true, formPost: true }, schema: cliLoginConfirmRoute };
    scope.post('/auth/cli-login', confirm, async (request, reply) => {
      const handoff = handoffOf(request.body, reply, 'Bad login request');
      if (!handoff) return reply;
      const actor = await sessionCaller(request);
      if (!actor) return signInFirst(reply);
      if (!sameToken(request.body.confirm, confirmationToken(secret, actor.sessionId ?? '', handoff))) {
        return sendPage(
          reply,
          403,
          page('Login not confirmed', '<p>Open the link <code>svc login</code> printed again.</p>'),
        );
      }
      const key = await mint(actor, handoff, reply);
      return key === undefined ? reply : sendPage(reply, 200, handoffPage(handoff, key));
    });
  });
}
