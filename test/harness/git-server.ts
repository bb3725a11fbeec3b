import { execFile, spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { loopbackServing } from './certs.ts';
import { registerSecret } from './leak-registry.ts';
import { makeTempDir, removeTempDir } from './process.ts';

const execFileAsync = promisify(execFile);

/** Options for {@link startGitServer}. */
export interface GitServerOptions {
  /** Require HTTP basic auth with these credentials for every request. */
  basicAuth?: { user: string; password: string };
  /** Serve HTTPS with a certificate for 127.0.0.1/localhost from a fresh CA (see {@link GitServer.caPEM}). */
  tls?: boolean;
}

/** Options for {@link GitServer.createRepo}. */
export interface CreateRepoOptions {
  /** Branch of the first commit (default `main`). */
  branch?: string;
  /** Message of the first commit. */
  message?: string;
}

/** A git smart-HTTP server on loopback serving fixture repositories. */
export interface GitServer {
  /** `http://127.0.0.1:<port>`, or `https://` with `tls` (no trailing slash). */
  baseURL: string;
  /** The CA (PEM) that signed the server's certificate, with `tls`. */
  caPEM: string | undefined;
  /** Creates a repository with one commit holding `files` (path → content). */
  createRepo(name: string, files: Record<string, string>, options?: CreateRepoOptions): Promise<GitRepo>;
  /** Every request received so far (method, path, and whether it carried credentials), e.g. to assert that a cache avoided a fetch. */
  requests: { method: string; path: string; authorized?: boolean }[];
  /**
   * Holds every request arriving from now on (recorded in `requests` on arrival; requests already being served go
   * on) until the hold is released: a client fetching meanwhile is provably mid-fetch, e.g. an operation kept in its
   * Running phase for as long as a test needs, without timing anything. Holds may overlap: requests go on once
   * every hold is released.
   */
  hold(): GitHold;
  /** Stops listening (clients get "connection refused") until `up()`, which listens again on the same port (no-op when up). */
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

/** A hold on a git server's requests (see {@link GitServer.hold}). */
export interface GitHold {
  /** Requests the server holds now (they have arrived and wait for every hold to be released). */
  waiting(): number;
  /** Ends this hold (again: no-op); held requests are served once no other hold is in force. */
  release(): void;
}

/**
 * A fixture repository. Every mutating helper pushes to the served bare repository and returns a real SHA.
 * "The first branch" below is `main` unless {@link CreateRepoOptions.branch} said otherwise.
 */
export interface GitRepo {
  /** Clone URL over HTTP (`<baseURL>/<name>.git`). */
  url: string;
  /** Bare repository on disk (what the server serves). */
  barePath: string;
  /**
   * Commits `files` on `branch` (default: the first branch; created from the first branch when missing): a string writes the file, null
   * deletes it. Resolves with the new commit SHA.
   */
  commit(files: Record<string, string | null>, message: string, options?: { branch?: string }): Promise<string>;
  /** Creates branch `name` at `from` (a branch, tag or SHA; default: the first branch); resolves with its SHA. */
  createBranch(name: string, from?: string): Promise<string>;
  /** Creates (or moves) tag `name` at `rev` (default: the first branch); annotated when `message` is given. */
  tag(name: string, rev?: string, message?: string): Promise<string>;
  /** SHA of a branch head (default: the first branch). */
  head(branch?: string): Promise<string>;
  /**
   * Rewrites history: amends the tip of `branch` (default: the first branch) with `files` and a new message, and
   * force-pushes. The old tip is no longer reachable from the branch. Resolves with the new SHA.
   */
  rewrite(files: Record<string, string | null>, message: string, options?: { branch?: string }): Promise<string>;
  /** Force-moves `branch` to `rev` (any SHA known to the repo); resolves with the SHA. */
  forcePush(branch: string, rev: string): Promise<string>;
  /** Deletes a branch or tag on the server. */
  deleteRef(ref: string): Promise<void>;
  /**
   * Pushes `rev` (any SHA or ref known to the working copy) as `refs/pull/<number>/head`, as a forge does for a pull
   * request (outside refs/heads and refs/tags); resolves with the SHA.
   */
  pushPullRef(number: number, rev: string): Promise<string>;
}

/**
 * Starts `git http-backend` behind a node:http server on 127.0.0.1 (random port). Repositories live in a temp
 * directory removed by stop(). Pushes over HTTP are accepted too (http.receivepack=true).
 */
export async function startGitServer(options: GitServerOptions = {}): Promise<GitServer> {
  const dir = makeTempDir('git');
  const root = join(dir, 'repos');
  const work = join(dir, 'work');
  await mkdir(root);
  await mkdir(work);
  const requests: { method: string; path: string; authorized?: boolean }[] = [];
  if (options.basicAuth) registerSecret('git server basic-auth password', options.basicAuth.password);
  const expectedAuth = options.basicAuth
    ? `Basic ${Buffer.from(`${options.basicAuth.user}:${options.basicAuth.password}`).toString('base64')}`
    : undefined;

  /** Requests held (see GitServer.hold), each continuing when every hold in force is released. */
  const held: (() => void)[] = [];
  let holds = 0;
  let listening = false;

  let tlsFiles: { key: Buffer; cert: Buffer } | undefined;
  let caPEM: string | undefined;
  if (options.tls) {
    const serving = await loopbackServing(dir, 'git');
    caPEM = serving.caPEM;
    tlsFiles = { key: serving.key, cert: serving.cert };
  }
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    requests.push({
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      authorized: req.headers.authorization !== undefined,
    });
    if (expectedAuth && req.headers.authorization !== expectedAuth) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="svc-test-git"' }).end();
      return;
    }
    // The body stays in the socket's buffer while held; serveCgi pipes it once released (unless the client left).
    const serve = () => {
      if (!req.socket.destroyed) serveCgi(root, req, res, options.basicAuth?.user);
    };
    if (holds === 0) serve();
    else held.push(serve);
  };
  const server: Server = tlsFiles ? createTlsServer(tlsFiles, handler) : createServer(handler);
  const listen = (port: number) =>
    new Promise<void>((resolveListen, rejectListen) => {
      server.once('error', rejectListen);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', rejectListen);
        listening = true;
        resolveListen();
      });
    });
  const close = async () => {
    if (!listening) return;
    listening = false;
    server.closeAllConnections();
    await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  };
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const baseURL = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;

  return {
    baseURL,
    caPEM,
    requests,
    createRepo: (name, files, repoOptions) =>
      createRepo({ root, work, home: dir, urlOf: (n) => `${baseURL}/${n}.git` }, name, files, repoOptions),
    hold() {
      holds++;
      let released = false;
      return {
        waiting: () => held.length,
        release() {
          if (released) return;
          released = true;
          holds--;
          if (holds === 0) for (const serve of held.splice(0)) serve();
        },
      };
    },
    down: close,
    up: () => (listening ? Promise.resolve() : listen(port)),
    async stop() {
      await close();
      removeTempDir(dir);
    },
  };
}

function serveCgi(root: string, req: IncomingMessage, res: ServerResponse, remoteUser: string | undefined): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: 'http.receivepack',
    GIT_CONFIG_VALUE_0: 'true',
    GIT_CONFIG_KEY_1: 'safe.directory',
    GIT_CONFIG_VALUE_1: '*',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    REMOTE_USER: remoteUser ?? 'anonymous',
    SERVER_PROTOCOL: 'HTTP/1.1',
  };
  const contentType = req.headers['content-type'];
  if (contentType) env['CONTENT_TYPE'] = contentType;
  const encoding = req.headers['content-encoding'];
  if (encoding) env['HTTP_CONTENT_ENCODING'] = encoding;
  const protocol = req.headers['git-protocol'];
  if (typeof protocol === 'string') env['GIT_PROTOCOL'] = protocol;
  const length = req.headers['content-length'];
  if (length) env['CONTENT_LENGTH'] = length;

  const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  req.pipe(cgi.stdin);
  let headerDone = false;
  let pending = Buffer.alloc(0);
  cgi.stdout.on('data', (chunk: Buffer) => {
    if (headerDone) {
      res.write(chunk);
      return;
    }
    pending = Buffer.concat([pending, chunk]);
    const end = pending.indexOf('\r\n\r\n');
    if (end < 0) return;
    headerDone = true;
    let status = 200;
    for (const line of pending.subarray(0, end).toString().split('\r\n')) {
      const colon = line.indexOf(':');
      const key = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (key.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(key, value);
    }
    res.writeHead(status);
    res.write(pending.subarray(end + 4));
  });
  cgi.stdout.on('end', () => {
    if (!headerDone) res.writeHead(502);
    res.end();
  });
  cgi.on('error', () => {
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
}

/** Where fixture repositories live and how clients name them. */
export interface RepoContext {
  /** Directory of the served bare repositories. */
  root: string;
  /** Directory of the working copies the helpers commit in. */
  work: string;
  /** HOME of the helpers' git (isolated from the caller's config). */
  home: string;
  /** The clone URL of repository `name`. */
  urlOf: (name: string) => string;
}

/** Creates a served fixture repository (see {@link GitRepo}); shared by the HTTP and SSH git servers. */
export async function createRepo(
  ctx: RepoContext,
  name: string,
  files: Record<string, string>,
  options: CreateRepoOptions = {},
): Promise<GitRepo> {
  const branch = options.branch ?? 'main';
  const barePath = join(ctx.root, `${name}.git`);
  const workPath = join(ctx.work, name);
  // Fixed identity and dates-from-clock, isolated from the caller's git config (HOME points into the temp dir).
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: ctx.home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'svc test',
    GIT_AUTHOR_EMAIL: 'test@svc.invalid',
    GIT_COMMITTER_NAME: 'svc test',
    GIT_COMMITTER_EMAIL: 'test@svc.invalid',
  };
  const git = async (cwd: string, ...args: string[]): Promise<string> => {
    try {
      const { stdout } = await execFileAsync('git', args, { cwd, env });
      return stdout.trim();
    } catch (error) {
      const err = error as Error & { stderr?: string };
      throw new Error(`git ${args.join(' ')} failed: ${err.stderr?.trim() || err.message}`);
    }
  };
  await mkdir(barePath, { recursive: true });
  await git(barePath, 'init', '--quiet', '--bare', `--initial-branch=${branch}`);
  await mkdir(workPath, { recursive: true });
  await git(workPath, 'init', '--quiet', `--initial-branch=${branch}`);
  await git(workPath, 'remote', 'add', 'origin', barePath);

  const writeFiles = async (changes: Record<string, string | null>) => {
    for (const [path, content] of Object.entries(changes)) {
      const target = join(workPath, path);
      if (content === null) {
        await rm(target, { force: true });
      } else {
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, content);
      }
    }
  };
  const checkout = async (target: string) => {
    const exists = await git(workPath, 'branch', '--list', target);
    if (exists) await git(workPath, 'checkout', '--quiet', target);
    else await git(workPath, 'checkout', '--quiet', '-b', target, branch);
  };
  const commitAll = async (message: string) => {
    await git(workPath, 'add', '--all');
    await git(workPath, 'commit', '--quiet', '--allow-empty', '-m', message);
    return git(workPath, 'rev-parse', 'HEAD');
  };

  await writeFiles(files);
  await commitAll(options.message ?? 'initial commit');
  await git(workPath, 'push', '--quiet', 'origin', branch);

  return {
    url: ctx.urlOf(name),
    barePath,
    async commit(changes, message, commitOptions = {}) {
      const target = commitOptions.branch ?? branch;
      await checkout(target);
      await writeFiles(changes);
      const sha = await commitAll(message);
      await git(workPath, 'push', '--quiet', 'origin', target);
      return sha;
    },
    async createBranch(newBranch, from = branch) {
      await git(workPath, 'branch', newBranch, from);
      await git(workPath, 'push', '--quiet', 'origin', newBranch);
      return git(workPath, 'rev-parse', newBranch);
    },
    async tag(tagName, rev = branch, message) {
      const args = message ? ['tag', '--force', '-a', tagName, '-m', message, rev] : ['tag', '--force', tagName, rev];
      await git(workPath, ...args);
      await git(workPath, 'push', '--quiet', '--force', 'origin', `refs/tags/${tagName}`);
      return git(workPath, 'rev-parse', `${tagName}^{commit}`);
    },
    head(target = branch) {
      return git(barePath, 'rev-parse', `refs/heads/${target}`);
    },
    async rewrite(changes, message, rewriteOptions = {}) {
      const target = rewriteOptions.branch ?? branch;
      await checkout(target);
      await writeFiles(changes);
      await git(workPath, 'add', '--all');
      await git(workPath, 'commit', '--quiet', '--allow-empty', '--amend', '-m', message);
      const sha = await git(workPath, 'rev-parse', 'HEAD');
      await git(workPath, 'push', '--quiet', '--force', 'origin', target);
      return sha;
    },
    async forcePush(target, rev) {
      const sha = await git(workPath, 'rev-parse', `${rev}^{commit}`);
      await git(workPath, 'push', '--quiet', '--force', 'origin', `${sha}:refs/heads/${target}`);
      const current = await git(workPath, 'rev-parse', '--abbrev-ref', 'HEAD');
      if (current === target) await git(workPath, 'reset', '--quiet', '--hard', sha);
      else await git(workPath, 'branch', '--force', target, sha);
      return sha;
    },
    async deleteRef(ref) {
      await git(workPath, 'push', '--quiet', 'origin', '--delete', ref);
    },
    async pushPullRef(number, rev) {
      const sha = await git(workPath, 'rev-parse', `${rev}^{commit}`);
      await git(workPath, 'push', '--quiet', '--force', 'origin', `${sha}:refs/pull/${number}/head`);
      return sha;
    },
  };
}
