import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChannelConfig } from '../../config.ts';
import type { SystemAuditEntry } from '../../internal/channel.ts';
import { HttpServerChannel, httpChannelFromConfig } from './http-channel.ts';

const base: ChannelConfig = {
  operatorToken: undefined,
  operatorServiceAccounts: [],
  serverURL: undefined,
  operatorTokenFile: '/nonexistent/token',
};

describe('httpChannelFromConfig', () => {
  it('says what is missing without the server URL or a credential', () => {
    expect(httpChannelFromConfig(base).missing).toBe(
      'SVC_SERVER_URL (the server’s URL) and SVC_OPERATOR_TOKEN, or a ServiceAccount token at /nonexistent/token (SVC_OPERATOR_TOKEN_FILE)',
    );
    expect(httpChannelFromConfig({ ...base, operatorToken: 'x'.repeat(32) }).missing).toBe(
      'SVC_SERVER_URL (the server’s URL)',
    );
  });

  it('builds the HTTP channel from the URL and the shared token or an existing token file', () => {
    const withToken = httpChannelFromConfig({ ...base, serverURL: 'http://svc:3000', operatorToken: 'x'.repeat(32) });
    expect(withToken.channel).toBeInstanceOf(HttpServerChannel);
    const dir = mkdtempSync(join(tmpdir(), 'svc-token-'));
    try {
      writeFileSync(join(dir, 'token'), 'jwt');
      const withFile = httpChannelFromConfig({
        ...base,
        serverURL: 'http://svc:3000',
        operatorTokenFile: join(dir, 'token'),
      });
      expect(withFile.channel).toBeInstanceOf(HttpServerChannel);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe('HttpServerChannel', () => {
  it('presents the ServiceAccount token file and reads it again after a 401 (the kubelet rotated it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-token-'));
    const seen: string[] = [];
    // A real HTTP server standing in for svc's /internal routes: it accepts only the rotated token.
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization ?? '');
      req.resume();
      const ok = req.headers.authorization === 'Bearer rotated';
      res.writeHead(ok ? 204 : 401, { 'content-type': 'application/json' });
      res.end(ok ? undefined : JSON.stringify({ error: 'token expired' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      writeFileSync(join(dir, 'token'), 'first\n');
      const { port } = server.address() as AddressInfo;
      const channel = new HttpServerChannel(`http://127.0.0.1:${port}`, { tokenFile: join(dir, 'token') });
      const entry: SystemAuditEntry = {
        orgNamespace: 'org-a',
        action: 'app.sync',
        resourceType: 'app',
        resourceName: 'web',
        details: {},
      };
      await expect(channel.recordAudit(entry)).rejects.toThrow(/401: token expired/);
      writeFileSync(join(dir, 'token'), 'rotated\n');
      await channel.recordAudit(entry);
      expect(seen).toEqual(['Bearer first', 'Bearer rotated']);
    } finally {
      server.close();
      rmSync(dir, { recursive: true });
    }
  });
});
