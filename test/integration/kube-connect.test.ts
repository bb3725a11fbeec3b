/**
 * src/kube's one client factory against a real kube-apiserver (a plane of this file's own): a client-certificate
 * kubeconfig and a bearer-token kubeconfig both work, so do exec credential plugins (a real script handing out the
 * token or the certificate), the in-cluster configuration (ServiceAccount files in a temp dir, the token re-read
 * after a 401) and a proxy-url (through an HTTP CONNECT tunnel); failures map to svc's typed errors.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type LookupFunction, connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { UnavailableError, UpstreamError } from '../../src/core/errors.ts';
import { connect, KubeApiError, type KubeClient, toSvcError } from '../../src/kube/index.ts';
import { type ControlPlane, freePort, startControlPlane } from '../harness/index.ts';

/** Who the apiserver says the client is (SelfSubjectReview). */
async function whoami(client: KubeClient): Promise<{ username: string; groups: string[] }> {
  const review = await client.request<{ status: { userInfo: { username: string; groups: string[] } } }>(
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    { method: 'POST', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } },
  );
  return review.status.userInfo;
}

describe('connect(): one client factory for every kind of credentials', () => {
  let plane: ControlPlane;
  let dir: string;
  const clients: KubeClient[] = [];
  const use = (client: KubeClient) => {
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    plane = await startControlPlane({ name: 'connect', kwok: false, controllers: false, crds: false });
    dir = mkdtempSync(join(tmpdir(), 'svc-connect-'));
  });
  afterAll(async () => {
    for (const c of clients) await c.dropConnections();
    await plane?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A kubeconfig file whose user runs `script` (a shell script) as its exec plugin. */
  function execKubeconfig(name: string, script: string): string {
    const plugin = join(dir, `${name}.sh`);
    writeFileSync(plugin, `#!/bin/sh\n${script}\n`);
    chmodSync(plugin, 0o755);
    const path = join(dir, `${name}.kubeconfig`);
    writeFileSync(
      path,
      stringify({
        clusters: [
          {
            name: 'c',
            cluster: {
              server: plane.serverURL,
              'certificate-authority-data': Buffer.from(plane.caPEM).toString('base64'),
            },
          },
        ],
        users: [{ name: 'u', user: { exec: { command: plugin, apiVersion: 'client.authentication.k8s.io/v1' } } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    return path;
  }

  it('works with the client-certificate kubeconfig (file) and the token kubeconfig (text)', async () => {
    const byCert = use(connect({ kubeconfigPath: plane.kubeconfigPath }).client);
    expect(await whoami(byCert)).toMatchObject({
      username: 'svc-test-admin',
      groups: expect.arrayContaining(['system:masters']),
    });
    const byToken = use(connect({ kubeconfigYaml: plane.tokenKubeconfigYaml }).client);
    expect((await whoami(byToken)).username).toBe('svc-test-token');
    const namespaces = await byToken.request<{ items: { metadata: { name: string } }[] }>('/api/v1/namespaces');
    expect(namespaces.items.map((n) => n.metadata.name)).toContain('default');
  });

  it('works with exec plugins handing out a token or a client certificate', async () => {
    const credential = (status: object) =>
      `printf '%s' '${JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status })}'`;
    const byToken = use(
      connect({ kubeconfigPath: execKubeconfig('token', credential({ token: plane.token })) }).client,
    );
    expect((await whoami(byToken)).username).toBe('svc-test-token');
    const byCert = use(
      connect({
        kubeconfigPath: execKubeconfig(
          'cert',
          credential({
            clientCertificateData: plane.admin.clientCertPEM,
            clientKeyData: plane.admin.clientKeyPEM,
          }),
        ),
      }).client,
    );
    expect((await whoami(byCert)).username).toBe('svc-test-admin');
  });

  it('works in-cluster from ServiceAccount files, re-reading a rotated token after a 401', async () => {
    const tokenPath = join(dir, 'sa-token');
    const caPath = join(dir, 'sa-ca.crt');
    writeFileSync(caPath, plane.caPEM);
    writeFileSync(tokenPath, 'an-old-token-the-server-no-longer-takes');
    const url = new URL(plane.serverURL);
    const env = { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port };
    const client = use(connect({ inCluster: { env, tokenPath, caPath } }).client);
    await expect(whoami(client)).rejects.toMatchObject({ status: 401 });
    // The kubelet rotates the token: the next 401 makes the client read the file again, and the retry passes.
    writeFileSync(tokenPath, plane.token);
    expect((await whoami(client)).username).toBe('svc-test-token');
  });

  it('reaches the apiserver through a proxy-url', async () => {
    // A hand-written HTTP CONNECT tunnel (no proxy server is installed here): it only counts and pipes bytes.
    let tunnels = 0;
    const proxy: Server = createServer();
    proxy.on('connect', (req, socket, head) => {
      tunnels++;
      const [host, port] = (req.url ?? '').split(':');
      const upstream = netConnect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    const port = await freePort();
    await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
    try {
      const yaml = plane.tokenKubeconfigYaml.replace(
        `server: ${plane.serverURL}`,
        `server: ${plane.serverURL}\n      proxy-url: http://127.0.0.1:${port}`,
      );
      expect(yaml).toContain('proxy-url');
      const client = connect({ kubeconfigYaml: yaml }).client;
      expect((await whoami(client)).username).toBe('svc-test-token');
      expect(tunnels).toBeGreaterThan(0);
      await client.dropConnections();
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('resolves the server through a given lookup (the seam for the outbound policy of src/net)', async () => {
    const asked: string[] = [];
    const lookup: LookupFunction = (hostname, _options, callback) => {
      asked.push(hostname);
      callback(new Error(`${hostname}: refused by policy`), '', 0);
    };
    const yaml = plane.tokenKubeconfigYaml.replace(
      plane.serverURL,
      plane.serverURL.replace('127.0.0.1', 'api.svc.test'),
    );
    const client = use(connect({ kubeconfigYaml: yaml, lookup }).client);
    const err = await client.request('/api/v1/namespaces').catch((e: unknown) => e);
    expect(asked).toEqual(['api.svc.test']);
    expect(err).toMatchObject({ status: 0, message: expect.stringMatching(/api\.svc\.test: refused by policy/) });
  });

  it('maps a refused token and an unreachable server to typed errors', async () => {
    const wrong = use(
      connect({ kubeconfigYaml: plane.tokenKubeconfigYaml.replace(plane.token, 'not-the-token') }).client,
    );
    const refused = await wrong.request('/api/v1/namespaces').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(KubeApiError);
    expect(refused).toMatchObject({ status: 401 });
    expect(toSvcError(refused, 'list namespaces')).toBeInstanceOf(UpstreamError);

    const closed = await freePort();
    const down = use(
      connect({ kubeconfigYaml: plane.tokenKubeconfigYaml.replace(plane.serverURL, `https://127.0.0.1:${closed}`) })
        .client,
    );
    const unreachable = await down.request('/api/v1/namespaces').catch((e: unknown) => e);
    expect(unreachable).toMatchObject({ status: 0 });
    const mapped = toSvcError(unreachable, 'list namespaces');
    expect(mapped).toBeInstanceOf(UnavailableError);
    expect(mapped.message).toMatch(/^list namespaces: cluster unreachable \(.*ECONNREFUSED/);
  });
});
