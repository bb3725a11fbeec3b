/**
 * Exec credential plugins (kubeconfig `users[].user.exec`), as managed clouds use them for their management
 * kubeconfigs (e.g. `aws eks get-token`, `gke-gcloud-auth-plugin`, `kubelogin`): svc runs the command with its args
 * and env, reads an ExecCredential (client.authentication.k8s.io/v1 or v1beta1) from its stdout, and uses its
 * `status.token` or `status.clientCertificateData`/`clientKeyData` until `status.expirationTimestamp` (without one,
 * until the server answers 401). Never interactive: svc has no terminal.
 */
import { type ExecFileException, execFile } from 'node:child_process';
import type { DynamicCredential } from './credentials.ts';
import { CredentialError } from './errors.ts';

/** The ExecCredential API versions svc speaks (v1alpha1 was removed from Kubernetes in 1.24). */
export const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const;

/** The plugin's settings from the kubeconfig. */
export interface ExecConfig {
  command: string;
  args: readonly string[];
  env: readonly { name: string; value: string }[];
  apiVersion: (typeof EXEC_API_VERSIONS)[number];
  installHint?: string;
  /** Pass the cluster's connection details in KUBERNETES_EXEC_INFO (`provideClusterInfo`). */
  provideClusterInfo: boolean;
}

/** The cluster as the plugin sees it in `spec.cluster` of KUBERNETES_EXEC_INFO. */
export interface ExecClusterInfo {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  config?: unknown;
}

/** Longest a plugin may run: a plugin that hangs must not hang every request with it. */
const PLUGIN_TIMEOUT_MS = 60_000;
/** Most stdout read from a plugin (an ExecCredential is a few KiB). */
const MAX_OUTPUT = 1024 * 1024;

interface ExecCredentialStatus {
  token?: unknown;
  clientCertificateData?: unknown;
  clientKeyData?: unknown;
  expirationTimestamp?: unknown;
}

/** One exec plugin of one kubeconfig user; answers are cached until they expire. */
export class ExecPlugin implements DynamicCredential {
  readonly #config: ExecConfig;
  readonly #what: string;
  readonly #cluster: ExecClusterInfo | undefined;
  #cached: { token?: string; cert?: string; key?: string; expiresAt: number } | undefined;
  #running: Promise<{ token?: string; cert?: string; key?: string }> | undefined;

  /** `what` names the user in errors (e.g. `kubeconfig /x (user "eks")`); `cluster` feeds provideClusterInfo. */
  constructor(config: ExecConfig, what: string, cluster?: ExecClusterInfo) {
    this.#config = config;
    this.#what = what;
    this.#cluster = cluster;
  }

  async get(): Promise<{ token?: string; cert?: string; key?: string }> {
    const cached = this.#cached;
    if (cached && Date.now() < cached.expiresAt) return cached;
    // One run at a time: concurrent requests share the plugin's answer.
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  invalidate(): void {
    this.#cached = undefined;
  }

  async #run(): Promise<{ token?: string; cert?: string; key?: string }> {
    const status = this.#parse(await this.#exec());
    const token = typeof status.token === 'string' && status.token ? status.token : undefined;
    const cert = typeof status.clientCertificateData === 'string' ? status.clientCertificateData : undefined;
    const key = typeof status.clientKeyData === 'string' ? status.clientKeyData : undefined;
    if (!token && !(cert && key)) {
      throw this.#error('answered neither status.token nor status.clientCertificateData with status.clientKeyData');
    }
    if ((cert && !key) || (key && !cert)) {
      throw this.#error('answered only one of status.clientCertificateData and status.clientKeyData');
    }
    const answer = { ...(token ? { token } : {}), ...(cert && key ? { cert, key } : {}) };
    this.#cached = { ...answer, expiresAt: this.#expiry(status.expirationTimestamp) };
    return answer;
  }

  /** When the answer expires (never without `status.expirationTimestamp`). */
  #expiry(timestamp: unknown): number {
    if (timestamp === undefined || timestamp === null) return Number.POSITIVE_INFINITY;
    const at = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
    if (Number.isNaN(at)) throw this.#error('answered a status.expirationTimestamp that is not a timestamp');
    return at;
  }

  #exec(): Promise<string> {
    const c = this.#config;
    const info = {
      apiVersion: c.apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false, ...(c.provideClusterInfo && this.#cluster ? { cluster: this.#cluster } : {}) },
    };
    const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
    for (const { name, value } of c.env) env[name] = value;
    return new Promise((resolve, reject) => {
      const child = execFile(
        c.command,
        [...c.args],
        { env, timeout: PLUGIN_TIMEOUT_MS, maxBuffer: MAX_OUTPUT, encoding: 'utf8' },
        (err, stdout, stderr) => (err ? reject(this.#failure(err, stderr)) : resolve(stdout)),
      );
      child.stdin?.end();
    });
  }

  /** Why the plugin failed: not found, not executable, stopped, or its exit code and the end of its stderr. */
  #failure(err: ExecFileException, stderr: string): CredentialError {
    const c = this.#config;
    const code = err.code;
    if (code === 'ENOENT') {
      return this.#error(`cannot run: command not found${c.installHint ? `. ${c.installHint}` : ''}`, err);
    }
    if (code === 'EACCES') return this.#error('cannot run: permission denied', err);
    const how = err.killed ? `was stopped after ${PLUGIN_TIMEOUT_MS / 1000} s` : `exited with code ${code}`;
    // The end of stderr says why; plugins print errors there, never the credential (that goes to stdout).
    const why = stderr.trim().slice(-300);
    return this.#error(`${how}${why ? `: ${why}` : ''}`, err);
  }

  #parse(stdout: string): ExecCredentialStatus {
    let doc: { apiVersion?: unknown; kind?: unknown; status?: unknown };
    try {
      doc = JSON.parse(stdout) as typeof doc;
    } catch {
      throw this.#error('printed no ExecCredential JSON on stdout');
    }
    if (doc?.kind !== 'ExecCredential') throw this.#error('printed JSON whose kind is not ExecCredential');
    if (doc.apiVersion !== this.#config.apiVersion) {
      throw this.#error(
        `answered apiVersion ${JSON.stringify(doc.apiVersion)}, but the kubeconfig asks for ${this.#config.apiVersion}`,
      );
    }
    if (!doc.status || typeof doc.status !== 'object') throw this.#error('answered an ExecCredential without status');
    return doc.status as ExecCredentialStatus;
  }

  #error(message: string, cause?: unknown): CredentialError {
    return new CredentialError(
      `${this.#what}: exec plugin ${JSON.stringify(this.#config.command)} ${message}`,
      cause === undefined ? {} : { cause },
    );
  }
}
