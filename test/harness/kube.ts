import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { connect, type KubeClient } from '../../src/kube/index.ts';
import { registerSecret } from './leak-registry.ts';
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
 * The second base64 line of a PEM key: key material alone (the first line is mostly the ASN.1 structure every key of
 * the kind shares), so a key printed in part or inside another text is still recognised by the leak check.
 */
function keyMaterialLine(pem: string): string | undefined {
  return pem.split('\n').filter((line) => line && !line.startsWith('-----'))[1];
}

/**
 * Renders a kubeconfig (YAML) with everything inline, so the file alone is enough for any client. Exactly one of
 * client cert/key or token is expected; no exec plugin is ever used.
 */
export function kubeconfigYaml(name: string, creds: KubeCredentials): string {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  if (creds.token) registerSecret(`kubeconfig ${name} token`, creds.token);
  if (creds.clientKeyPEM) {
    registerSecret(`kubeconfig ${name} client key`, creds.clientKeyPEM);
    const keyLine = keyMaterialLine(creds.clientKeyPEM);
    if (keyLine) registerSecret(`kubeconfig ${name} client key (one line of it)`, keyLine);
  }
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

/**
 * A client for these credentials from svc's own Kubernetes layer (src/kube): the harness's way to call an
 * apiserver (readiness, bootstrap objects), the same code the operator and the API run. Close it with
 * `dropConnections()` when done with it.
 */
export function kubeClient(creds: KubeCredentials): KubeClient {
  return connect({ kubeconfigYaml: kubeconfigYaml('harness', creds) }).client;
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

/** One sample of the apiserver's Prometheus metrics: metric name, its labels, its value. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The apiserver's `/metrics` samples whose name is `name` (e.g. `apiserver_longrunning_requests`). */
export async function apiserverMetric(client: KubeClient, name: string): Promise<MetricSample[]> {
  const out: MetricSample[] = [];
  for (const line of (await client.text('/metrics')).split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labels: Record<string, string> = {};
    const close = line.lastIndexOf('}');
    for (const m of line.slice(0, Math.max(close, 0)).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[m[1] as string] = m[2] as string;
    }
    out.push({ name, labels, value: Number(line.slice(line.lastIndexOf(' ') + 1)) });
  }
  return out;
}

/**
 * The apiserver's own count of requests it served (`apiserver_request_total`), summed by `VERB resource[/sub]`,
 * so two moments can be compared by the work asked of it. A long-running request (a watch) counts when it ends.
 */
export async function apiserverRequestCounts(client: KubeClient): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const { labels, value } of await apiserverMetric(client, 'apiserver_request_total')) {
    const sub = labels['subresource'];
    const key = `${labels['verb']} ${labels['resource'] ?? ''}${sub ? `/${sub}` : ''}`;
    out[key] = (out[key] ?? 0) + value;
  }
  return out;
}
