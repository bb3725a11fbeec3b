import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChannelConfig } from '../config.ts';
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
