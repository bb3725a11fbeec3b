/**
 * The operator → server internal channel (docs/compatibility.md "Internal channel"): `/internal/audit` and
 * `/api/v1/internal/audit` accept only the operator's credential — the shared secret SVC_OPERATOR_TOKEN, or a
 * ServiceAccount token that a TokenReview against the real management cluster maps to an allowed username — and
 * refuse a user's session or API key (403) and anything else (401). An operator run apart from the server, with
 * SVC_SERVER_URL and SVC_OPERATOR_TOKEN, audits each push delivery it turns into a sync with an empty user_id.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { generateX25519Identity } from 'age-encryption';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { HttpServerChannel } from '../../src/operator/channel/http-channel.ts';
import { type GitRepo, type GitServer, serviceAccountToken, startGitServer, waitUntil } from '../harness/index.ts';
import { auditEntries, mintKey, type OrgApi, startOrgApi } from './api-support.ts';
import { deleteNamespaces, getApp, startTestOperator, type TestOperator } from './operator-support.ts';

const operatorToken = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex');
const allowedSA = { namespace: `svc-system-${suffix}`, name: 'svc-operator' };
const otherSA = { namespace: `svc-system-${suffix}`, name: 'someone-else' };

const entry = (name: string) => ({
  org_namespace: '',
  action: 'app.sync',
  resource_type: 'app',
  resource_name: name,
  details: { triggeredBy: 'test' },
});

describe('internal channel', () => {
  let org: OrgApi;
  let git: GitServer;
  let repo: GitRepo;
  let op: TestOperator | undefined;
  let serverURL = '';

  beforeAll(async () => {
    org = await startOrgApi('internal', {
      SVC_OPERATOR_TOKEN: operatorToken,
      SVC_OPERATOR_SERVICE_ACCOUNTS: `system:serviceaccount:${allowedSA.namespace}:${allowedSA.name}`,
    });
    await org.api.app.listen({ host: '127.0.0.1', port: 0 });
    serverURL = `http://127.0.0.1:${(org.api.app.server.address() as AddressInfo).port}`;
    git = await startGitServer();
    repo = await git.createRepo(`internal-${suffix}`, {
      'm/config.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pushed\ndata:\n  v: "1"\n',
    });
  });

  afterAll(async () => {
    await op?.stop();
    await org?.api.close();
    await git?.stop();
    await deleteNamespaces(org.orgNs, allowedSA.namespace, `${org.orgNs}-web`);
  });

  const post = (path: string, headers: Record<string, string>, name = 'direct') =>
    org.api.call('POST', path, {
      headers,
      body: { ...entry(name), org_namespace: org.orgNs },
    });

  it('answers 401 without a credential and 403 to a user session or API key, under both prefixes', async () => {
    const key = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'admin' });
    for (const path of ['/internal/audit', '/api/v1/internal/audit']) {
      const none = await post(path, {});
      expect(none).toMatchObject({ status: 401, body: { error: expect.any(String) } });
      const session = await post(path, { cookie: org.owner.cookie });
      expect(session).toMatchObject({ status: 403, body: { error: expect.stringContaining('operator') } });
      const apiKey = await post(path, { authorization: `Bearer ${key.key}` });
      expect(apiKey).toMatchObject({ status: 403, body: { error: expect.stringContaining('operator') } });
      const wrong = await post(path, { authorization: `Bearer ${randomBytes(32).toString('hex')}` });
      expect(wrong).toMatchObject({ status: 401, body: { error: expect.any(String) } });
    }
    expect(await auditEntries(org.api, org.owner, 'app.sync', 'direct')).toEqual([]);
  });

  it('records a caller-less entry with the shared token, under both prefixes, and validates the body', async () => {
    const auth = { authorization: `Bearer ${operatorToken}` };
    expect(await post('/internal/audit', auth)).toMatchObject({ status: 201, body: { recorded: true } });
    expect(await post('/api/v1/internal/audit', auth)).toMatchObject({ status: 201, body: { recorded: true } });
    const recorded = await auditEntries(org.api, org.owner, 'app.sync', 'direct');
    expect(recorded).toHaveLength(2);
    expect(recorded[0]).toMatchObject({ user_id: '', resource_type: 'app', details: { triggeredBy: 'test' } });

    const badAction = await org.api.call('POST', '/internal/audit', {
      headers: auth,
      body: { ...entry('direct'), org_namespace: org.orgNs, action: 'apikey.create' },
    });
    expect(badAction).toMatchObject({ status: 400, body: { error: expect.stringContaining('action') } });
    const noOrg = await org.api.call('POST', '/internal/audit', {
      headers: auth,
      body: { ...entry('direct'), org_namespace: 'kube-system' },
    });
    expect(noOrg).toMatchObject({ status: 404, body: { error: expect.stringContaining('kube-system') } });
  });

  it('accepts a ServiceAccount token in the allowlist (TokenReview) and refuses one outside it', async () => {
    const kubeconfig = inject('mgmtKubeconfig');
    const allowed = await serviceAccountToken(kubeconfig, allowedSA);
    const other = await serviceAccountToken(kubeconfig, otherSA);
    const ok = await post('/internal/audit', { authorization: `Bearer ${allowed}` }, 'by-sa');
    expect(ok).toMatchObject({ status: 201, body: { recorded: true } });
    const refused = await post('/internal/audit', { authorization: `Bearer ${other}` }, 'by-sa');
    expect(refused).toMatchObject({
      status: 403,
      body: { error: expect.stringContaining(`system:serviceaccount:${otherSA.namespace}:${otherSA.name}`) },
    });
    expect(await auditEntries(org.api, org.owner, 'app.sync', 'by-sa')).toHaveLength(1);
  });

  it('audits a push delivery of an operator that reaches the server over HTTP with the shared token', async () => {
    op = await startTestOperator(org.orgNs, { env: { SVC_SERVER_URL: serverURL, SVC_OPERATOR_TOKEN: operatorToken } });
    const created = await org.api.call('POST', '/api/v1/apps', {
      cookie: org.owner.cookie,
      body: {
        name: 'web',
        namespace: `${org.orgNs}-web`,
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        webhook: { enabled: true },
      },
    });
    expect(created.status).toBe(201);
    const push = await fetch(`http://127.0.0.1:${op.ports.webhook}/webhook/gitA`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
      body: JSON.stringify({ ref: 'refs/heads/main', after: await repo.head(), repository: { clone_url: repo.url } }),
    });
    expect(await push.json()).toEqual({ matched: 1 });
    const operation = (await getApp(org.orgNs, 'web'))?.spec.operation;
    expect(operation?.triggeredBy).toBe('webhook:gitA');
    await waitUntil(async () => (await auditEntries(org.api, org.owner, 'app.sync', 'web')).length > 0, {
      what: 'the push delivery audited',
      timeoutMs: 30_000,
    });
    expect(await auditEntries(org.api, org.owner, 'app.sync', 'web')).toEqual([
      expect.objectContaining({
        user_id: '',
        resource_type: 'app',
        details: {
          triggeredBy: 'webhook:gitA',
          operation_id: operation?.id,
          namespace: `${org.orgNs}-web`,
          cluster: '',
        },
      }),
    ]);
  });

  it('hands SOPS keys to the operator over HTTP for an App that names the store, and to nobody else', async () => {
    const privateKey = await generateX25519Identity();
    const store = await org.api.call('POST', '/api/v1/secret-stores', {
      cookie: org.owner.cookie,
      body: { name: 'age-http', type: 'sops', provider: 'age', credentials: { privateKey } },
    });
    expect(store.status).toBe(201);
    const created = await org.api.call('POST', '/api/v1/apps', {
      cookie: org.owner.cookie,
      body: {
        name: 'sealed',
        namespace: `${org.orgNs}-sealed`,
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm', decryption: { storeRef: 'age-http' } } },
      },
    });
    expect(created.status).toBe(201);
    const channel = new HttpServerChannel(serverURL, { token: operatorToken });
    const request = { appNamespace: org.orgNs, appName: 'sealed', storeRef: 'age-http' };
    expect(await channel.decryptionKey(request)).toBe(privateKey);
    // An App that does not name the store gets nothing; the refusal is final for that spec (stall).
    await expect(channel.decryptionKey({ ...request, appName: 'web' })).rejects.toMatchObject({
      message: expect.stringContaining('403: App web does not use secret store "age-http"'),
      retry: 'stall',
    });
    // A missing store may still be created: the operator waits rather than stalls.
    await expect(channel.decryptionKey({ ...request, storeRef: 'age-later' })).rejects.toMatchObject({ retry: 'wait' });
    const body = { app_namespace: org.orgNs, app_name: 'sealed', store_ref: 'age-http' };
    const key = await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'admin' });
    const callers: Record<string, string>[] = [{ cookie: org.owner.cookie }, { authorization: `Bearer ${key.key}` }];
    for (const headers of callers) {
      const answer = await org.api.call('POST', '/internal/secret-stores/decryption-key', { headers, body });
      expect(answer.status).toBe(403);
      expect(JSON.stringify(answer.body)).not.toContain(privateKey);
    }
    expect((await org.api.call('POST', '/internal/secret-stores/decryption-key', { body })).status).toBe(401);
  });
});
