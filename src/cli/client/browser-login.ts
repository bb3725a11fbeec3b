/**
 * The command-line half of `svc login --browser` (the server half is src/api/routes/cli-login.ts): listen on
 * 127.0.0.1 on a free port, show (and try to open) the server's confirmation page with a random state, and take the
 * API key the page posts back to /callback with that state. Nothing else is accepted; the listener closes after one
 * key or the timeout.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { CliError, EXIT } from './errors.ts';

export interface BrowserLoginOptions {
  server: string;
  role: string;
  expiresDays: number;
  timeoutMs: number;
  /** Tries to open the page in a browser (false: only print it). */
  open: boolean;
  /** Where the URL is shown to the user. */
  tell: (text: string) => void;
}

const DONE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc</title></head>
<body style="font:16px system-ui,sans-serif;max-width:36rem;margin:4rem auto">
<h1>svc is logged in</h1><p>You can close this window and go back to the terminal.</p></body></html>`;

function readBody(req: IncomingMessage, limit = 16 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > limit) req.destroy(new Error('body too large'));
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** Opens `url` with the desktop's opener, ignoring failure (the URL is printed anyway). */
function openInBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener: the printed URL is the way.
  }
}

/** Runs the loopback flow and answers the API key the browser handed over. */
export async function browserLogin(options: BrowserLoginOptions): Promise<string> {
  const state = randomBytes(24).toString('base64url');
  let settle: { resolve: (key: string) => void; reject: (err: Error) => void } | undefined;
  const received = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const fields = new URLSearchParams(await readBody(req).catch(() => ''));
    const key = fields.get('key') ?? '';
    if (fields.get('state') !== state || !key.startsWith('svc_')) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('state mismatch: run svc login again\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DONE_PAGE);
    settle?.resolve(key);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = new URL(`${options.server}/api/v1/auth/cli-login`);
  url.searchParams.set('port', String(port));
  url.searchParams.set('state', state);
  url.searchParams.set('name', hostname().slice(0, 64) || 'svc CLI');
  url.searchParams.set('role', options.role);
  url.searchParams.set('expires_days', String(options.expiresDays));
  options.tell(`Open this page in a browser where you are signed in to svc, and confirm:\n  ${url}\n`);
  if (options.open) openInBrowser(url.toString());
  const timer = setTimeout(
    () => settle?.reject(new CliError('no key arrived from the browser in time; run svc login again', EXIT.auth)),
    options.timeoutMs,
  );
  try {
    return await received;
  } finally {
    clearTimeout(timer);
    server.close();
    server.closeAllConnections();
  }
}
