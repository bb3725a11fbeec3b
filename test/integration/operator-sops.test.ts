/**
 * SOPS decryption at apply (contract §9, planned; issue 12): Git Apps whose `decryption.storeRef` names an age store
 * get their SOPS-encrypted files decrypted with the real sops binary before rendering — Raw manifests, and a
 * Kustomize overlay with an encrypted Secret resource and an encrypted dotenv file behind a secretGenerator. The
 * operator runs with the API server's own channel (as `svc start` does): it holds no key and asks the server for
 * the identity. A file changed after encryption (MAC mismatch) or a wrong key fails the sync naming the file and
 * applies nothing; an encrypted file without decryption is refused. No plaintext reaches any log line, Event, App
 * status, API answer, or file left in memory-backed storage.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppResource } from '../../src/core/app-schema.ts';
import { binary, type GitRepo, type GitServer, registerSecret, startGitServer } from '../harness/index.ts';
import { type OrgApi, startOrgApi } from './api-support.ts';
import {
  deleteNamespaces,
  eventsAbout,
  getObject,
  startTestOperator,
  type TestOperator,
  waitForApp,
} from './operator-support.ts';

type Json = Record<string, unknown>;
const run = randomBytes(4).toString('hex');
// Plaintext values unique to this run, so a scan for them cannot match anything else.
const PASSWORD = `pw-${run}-raw`;
const API_TOKEN = `tok-${run}-kust`;
const ENV_PASS = `env-${run}-gen`;
const PLAINTEXTS = [PASSWORD, API_TOKEN, ENV_PASS];

/** `sops encrypt` of `plain` for `recipient` (only data/stringData encrypted in YAML, as users configure it). */
function encrypt(plain: string, recipient: string, file: string): string {
  const home = mkdtempSync(join(tmpdir(), 'svc-sops-test-'));
  try {
    const yaml = /\.ya?ml$/.test(file);
    const args = ['encrypt', '--age', recipient, '--filename-override', file];
    if (yaml) args.push('--encrypted-regex', '^(data|stringData)$');
    const res = spawnSync(binary('sops'), args, { input: plain, cwd: home, env: { HOME: home }, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`sops encrypt failed: ${res.stderr}`);
    return res.stdout;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const secretYaml = (name: string, key: string, value: string) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\ntype: Opaque\nstringData:\n  ${key}: ${value}\n`;
const configMap = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  plain: "yes"\n`;

/** A live Secret's decoded data and annotations; throws when it does not exist. */
async function liveSecret(namespace: string, name: string) {
  const secret = (await getObject('v1', 'Secret', namespace, name)) as
    | { data?: Record<string, string>; metadata: { annotations?: Record<string, string> }; sops?: unknown }
    | undefined;
  if (!secret) throw new Error(`Secret ${namespace}/${name} does not exist`);
  const data = Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
  );
  return { data, annotations: secret.metadata.annotations ?? {}, sops: secret.sops };
}

/** Files holding one of `needles` under `dir`, or (with `prefixes`) under its top-level entries of those names. */
function filesHolding(dir: string, needles: string[], prefixes?: string[]): string[] {
  const found: string[] = [];
  const walk = (d: string, depth: number) => {
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const e of entries) {
      if (depth === 0 && prefixes && !prefixes.some((p) => e.startsWith(p))) continue;
      const p = join(d, e);
      try {
        const st = statSync(p);
        if (st.isDirectory()) walk(p, depth + 1);
        else if (st.isFile() && st.size < 10_000_000 && needles.some((n) => readFileSync(p, 'utf8').includes(n)))
          found.push(p);
      } catch {
        // another process's file, gone or unreadable
      }
    }
  };
  walk(dir, 0);
  return found;
}

describe('SOPS decryption at apply', () => {
  let org: OrgApi;
  let git: GitServer;
  let repo: GitRepo;
  let op: TestOperator | undefined;
  const apiLogs: string[] = [];
  const opLogs: string[] = [];
  const dests: string[] = [];
  let goodKey: string;
  let otherKey: string;
  let storeId = '';

  const dest = (name: string) => {
    const ns = `${name}-${run}`;
    if (!dests.includes(ns)) dests.push(ns);
    return ns;
  };
  const call = <T = Json>(method: string, url: string, body?: unknown) =>
    org.api.call<T>(method, url, { cookie: org.owner.cookie, ...(body === undefined ? {} : { body }) });
  const createApp = async (name: string, git: Json) => {
    const res = await call('POST', '/api/v1/apps', {
      name,
      namespace: dest(name),
      source: { type: 'Git', git: { repoURL: repo.url, ...git } },
      sync_policy: { automated: true, prune: true },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  const renderFailure = (app: AppResource) =>
    app.status?.conditions?.find((c) => c.type === 'SyncError' && c.status === 'True' && c.reason === 'RenderFailed');

  beforeAll(async () => {
    goodKey = await generateX25519Identity();
    otherKey = await generateX25519Identity();
    // The run's leak check looks for the SOPS plaintexts and both age identities everywhere, beyond this file's scans.
    for (const [i, plain] of PLAINTEXTS.entries()) registerSecret(`SOPS plaintext #${i + 1}`, plain);
    registerSecret('age identity (store key)', goodKey);
    registerSecret('age identity (other key)', otherKey);
    const recipient = await identityToRecipient(goodKey);
    [org, git] = await Promise.all([startOrgApi('sops', undefined, { logLines: apiLogs }), startGitServer()]);
    const good = await call('POST', '/api/v1/secret-stores', {
      name: 'age-main',
      type: 'sops',
      provider: 'age',
      credentials: { privateKey: goodKey },
    });
    storeId = String(good.body['id']);
    expect((good.body['config'] as Json)['recipient']).toBe(recipient);
    await call('POST', '/api/v1/secret-stores', {
      name: 'age-other',
      type: 'sops',
      provider: 'age',
      credentials: { privateKey: otherKey },
    });

    const rawSecret = encrypt(secretYaml('db', 'password', PASSWORD), recipient, 'secret.yaml');
    const tampered = rawSecret.replace('name: db', 'name: db-renamed');
    repo = await git.createRepo(`sops-${run}`, {
      'raw/secret.yaml': rawSecret,
      'raw/config.yaml': configMap('settings'),
      'kust/kustomization.yaml': [
        'resources:',
        '- api-secret.yaml',
        '- config.yaml',
        'secretGenerator:',
        '- name: generated',
        '  envs:',
        '  - creds.env',
        'generatorOptions:',
        '  disableNameSuffixHash: true',
        '',
      ].join('\n'),
      'kust/api-secret.yaml': encrypt(secretYaml('api', 'token', API_TOKEN), recipient, 'api-secret.yaml'),
      'kust/config.yaml': configMap('kust-settings'),
      'kust/creds.env': encrypt(`PASS=${ENV_PASS}\nUSER=svc\n`, recipient, 'creds.env'),
      'tampered/secret.yaml': tampered,
    });
    // The operator asks the API server for keys through the server's own channel, as in `svc start`.
    op = await startTestOperator(org.orgNs, { serverChannel: org.api.app.serverChannel, logLines: opLogs });
  });

  afterAll(async () => {
    await op?.stop();
    await org?.api.close();
    await git?.stop();
    await deleteNamespaces(org.orgNs, ...dests);
  });

  it('applies the decrypted Secret of a Raw path', async () => {
    await createApp('raw', { path: 'raw', decryption: { storeRef: 'age-main' } });
    const app = await waitForApp(org.orgNs, 'raw', 'Synced', (a) => a.status?.syncStatus === 'Synced');
    expect(renderFailure(app)).toBeUndefined();
    const secret = await liveSecret(dest('raw'), 'db');
    expect(secret.data['password']).toBe(PASSWORD);
    expect(secret.sops).toBeUndefined();
    // A keyed digest, not the values, stands for the Secret in the App's change detection.
    expect(secret.annotations['cd.svc.space/secret-digest']).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(await getObject('v1', 'ConfigMap', dest('raw'), 'settings')).toBeDefined();
    expect((await call('GET', `/api/v1/secret-stores/${storeId}`)).body['references']).toBeGreaterThanOrEqual(1);
  });

  it('applies a kustomization whose resources and secretGenerator inputs are SOPS-encrypted', async () => {
    await createApp('kust', { path: 'kust', decryption: { storeRef: 'age-main' }, kustomize: { namePrefix: 'k-' } });
    await waitForApp(org.orgNs, 'kust', 'Synced', (a) => a.status?.syncStatus === 'Synced');
    const ns = dest('kust');
    expect((await liveSecret(ns, 'k-api')).data['token']).toBe(API_TOKEN);
    expect((await liveSecret(ns, 'k-generated')).data).toEqual({ PASS: ENV_PASS, USER: 'svc' });
  });

  it('fails the sync naming the file for a tampered file and for a wrong key, applying nothing', async () => {
    await createApp('tampered', { path: 'tampered', decryption: { storeRef: 'age-main' } });
    const tampered = await waitForApp(org.orgNs, 'tampered', 'RenderFailed', (a) => renderFailure(a) !== undefined);
    expect(renderFailure(tampered)?.message).toMatch(
      /tampered\/secret\.yaml: cannot be decrypted with secret store "age-main": MAC mismatch/,
    );
    expect(await getObject('v1', 'Secret', dest('tampered'), 'db-renamed')).toBeUndefined();

    await createApp('wrongkey', { path: 'raw', decryption: { storeRef: 'age-other' } });
    const wrong = await waitForApp(org.orgNs, 'wrongkey', 'RenderFailed', (a) => renderFailure(a) !== undefined);
    expect(renderFailure(wrong)?.message).toMatch(
      /raw\/secret\.yaml: cannot be decrypted with secret store "age-other": .*wrong key/,
    );
    expect(await getObject('v1', 'Secret', dest('wrongkey'), 'db')).toBeUndefined();
    expect(await getObject('v1', 'ConfigMap', dest('wrongkey'), 'settings')).toBeUndefined();
  });

  it('refuses encrypted manifests without decryption, and a decryption store that does not exist', async () => {
    await createApp('plain', { path: 'raw' });
    const plain = await waitForApp(org.orgNs, 'plain', 'RenderFailed', (a) => renderFailure(a) !== undefined);
    expect(renderFailure(plain)?.message).toMatch(
      /Secret db is SOPS-encrypted: set spec\.source\.git\.decryption\.storeRef/,
    );
    expect(await getObject('v1', 'Secret', dest('plain'), 'db')).toBeUndefined();

    await createApp('nostore', { path: 'raw', decryption: { storeRef: 'no-such-store' } });
    const missing = await waitForApp(org.orgNs, 'nostore', 'RenderFailed', (a) => renderFailure(a) !== undefined);
    expect(renderFailure(missing)?.message).toMatch(/no secret store named "no-such-store"/);
  });

  it('leaves no plaintext in logs, Events, App status, API answers or memory-backed files', async () => {
    const texts: [string, string][] = [];
    for (const name of ['raw', 'kust', 'tampered', 'wrongkey', 'plain', 'nostore']) {
      const ns = `${name}-${run}`;
      const res = await call('GET', `/api/v1/apps/${ns}/${name}`);
      texts.push([`GET app ${name}`, JSON.stringify(res.body)]);
      texts.push([`GET status ${name}`, JSON.stringify((await call('GET', `/api/v1/apps/${ns}/${name}/status`)).body)]);
      texts.push([`GET events ${name}`, JSON.stringify((await call('GET', `/api/v1/apps/${ns}/${name}/events`)).body)]);
      texts.push([`App ${name}`, JSON.stringify(await org.kube.get(org.orgNs, name))]);
      texts.push([`Events about ${name}`, JSON.stringify(await eventsAbout(org.orgNs, name))]);
    }
    for (const ns of dests) {
      const events = await org.kube.client.request<{ items: unknown[] }>(`/api/v1/namespaces/${ns}/events`);
      texts.push([`Events in ${ns}`, JSON.stringify(events.items)]);
    }
    texts.push(['GET /apps', JSON.stringify((await call('GET', '/api/v1/apps')).body)]);
    texts.push(['GET /secret-stores', JSON.stringify((await call('GET', '/api/v1/secret-stores')).body)]);
    texts.push(['GET /audit', JSON.stringify((await call('GET', '/api/v1/audit?limit=200')).body)]);
    texts.push(['API log', apiLogs.join('\n')]);
    texts.push(['operator log', opLogs.join('\n')]);
    expect(opLogs.length).toBeGreaterThan(0);
    for (const [where, text] of texts) {
      for (const secret of [...PLAINTEXTS, goodKey, otherKey]) expect(text, where).not.toContain(secret);
    }
    // Decrypting checkouts (memory-backed /dev/shm here) and sops' private homes are gone with their plaintext.
    // The operator keeps re-rendering (decrypting renders skip the render cache, failing Apps retry), and a render
    // in flight legitimately holds its checkout: stop it first, so what is scanned is what renders leave behind.
    await op?.stop();
    op = undefined;
    expect(filesHolding('/dev/shm', PLAINTEXTS)).toEqual([]);
    expect(filesHolding(tmpdir(), [...PLAINTEXTS, goodKey], ['svc-checkout-', 'svc-sops-'])).toEqual([]);
  });
});
