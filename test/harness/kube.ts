import { execFile } from 'node:child_process';
import { request } from 'node:https';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { binary } from './paths.ts';

/** Credentials for talking to an apiserver: the CA plus a client cert/key pair or a bearer token (PEM text). */
export interface KubeCredentials {
  serverURL: string;
  caPEM: string;
  clientCertPEM?: string;
  clientKeyPEM?: string;
  token?: string;
}

/**
 * Renders a kubeconfig (YAML) with everything inline, so the file alone is enough for any client. Exactly one of
 * client cert/key or token is expected; no exec plugin is ever used.
 */
export function kubeconfigYaml(name: string, creds: KubeCredentials): string {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const user: Record<string, string> = {};
  if (creds.token) user['token'] = creds.token;
  if (creds.clientCertPEM) user['client-certificate-data'] = b64(creds.clientCertPEM);
  if (creds.clientKeyPEM) user['client-key-data'] = b64(creds.clientKeyPEM);
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: creds.serverURL, 'certificate-authority-data': b64(creds.caPEM) } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
  });
}

/** Response of {@link kubeRequest}. */
export interface KubeResponse {
  status: number;
  body: string;
}

/**
 * Minimal HTTPS request to an apiserver (the harness's own needs: readiness, bootstrap objects). Tests use
 * @kubernetes/client-node or {@link kubectl} instead.
 */
export function kubeRequest(
  creds: KubeCredentials,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<KubeResponse> {
  const url = new URL(path, creds.serverURL);
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolveResponse, reject) => {
    const req = request(
      url,
      {
        method,
        ca: creds.caPEM,
        cert: creds.clientCertPEM,
        key: creds.clientKeyPEM,
        headers: {
          accept: 'application/json',
          ...(creds.token ? { authorization: `Bearer ${creds.token}` } : {}),
          ...(payload === undefined ? {} : { 'content-type': contentType }),
        },
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolveResponse({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timeout`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Path of the kubectl built with the control plane (same version as the apiserver). */
export function kubectlPath(): string {
  return binary('kubernetes', 'kubectl');
}

/**
 * Runs the built kubectl against a kubeconfig file, with `input` on stdin when given (for `-f -`); resolves with its
 * output, rejects (with stderr in the message) on a non-zero exit. Its discovery cache lives beside the kubeconfig:
 * the shared ~/.kube/cache is keyed by host:port, and a later plane on a recycled port would read an earlier plane's
 * resources and categories.
 */
export function kubectl(
  kubeconfigPath: string,
  args: readonly string[],
  options: { input?: string } = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = execFile(
      kubectlPath(),
      ['--kubeconfig', kubeconfigPath, '--cache-dir', join(dirname(kubeconfigPath), 'kubectl-cache'), ...args],
      { maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
        else resolveRun({ stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}
