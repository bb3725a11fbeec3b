import { describe, expect, it } from 'vitest';
import { loadConfig, parseDuration, parseListenAddress } from './config.ts';
import { ConfigError } from './core/errors.ts';

const secrets = { AUTH_SECRET: 'a'.repeat(40), SVC_CREDENTIALS_KEY: 'ab'.repeat(32) };

describe('loadConfig', () => {
  it('applies the defaults of the embedded mode', () => {
    const c = loadConfig({ env: secrets, cwd: '/srv/svc' });
    expect(c.listen).toEqual({ host: '', port: 3000 });
    expect(c.database).toEqual({ kind: 'sqlite', path: '/srv/svc/.svc/svc.db' });
    expect(c.mgmtKubeconfig).toBeUndefined();
    expect(c.sessionCookieName).toBe('better-auth.session_token');
    expect(c.credentialsKey).toHaveLength(32);
    expect(c.outbound).toEqual({ scope: 'loopback', requireHttps: false });
    expect(c.operator).toMatchObject({
      syncPeriodMs: 60_000,
      errorRequeueMs: 30_000,
      leaderElect: true,
      sharding: 'off',
      webhookBind: { host: '', port: 8082 },
      metricsBind: { host: '', port: 8080 },
      probeBind: { host: '', port: 8081 },
    });
  });

  it('reads every setting', () => {
    const c = loadConfig({
      env: {
        ...secrets,
        SVC_MGMT_KUBECONFIG: 'kube/config',
        SVC_DATABASE_URL: 'postgres://svc@db/svc',
        SESSION_COOKIE_NAME: '__Secure-svc.session_token',
        SVC_TAG_POLL_INTERVAL: '2m',
        SVC_LISTEN: '127.0.0.1:9000',
        SVC_OUTBOUND_SCOPE: 'public',
      },
      flags: { syncPeriod: '5m', webhookBindAddress: ':9082', leaderElect: 'false' },
      cwd: '/srv/svc',
    });
    expect(c.mgmtKubeconfig).toBe('/srv/svc/kube/config');
    expect(c.database).toEqual({ kind: 'postgres', url: 'postgres://svc@db/svc' });
    expect(c.sessionCookieName).toBe('__Secure-svc.session_token');
    expect(c.tagPollIntervalMs).toBe(120_000);
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(c.outbound.scope).toBe('public');
    expect(c.operator.syncPeriodMs).toBe(300_000);
    expect(c.operator.webhookBind.port).toBe(9082);
    expect(c.operator.leaderElect).toBe(false);
  });

  it("keeps SVC_MGMT_KUBECONFIG=in-cluster as is (the Pod's ServiceAccount), not as a path", () => {
    const c = loadConfig({ env: { ...secrets, SVC_MGMT_KUBECONFIG: 'in-cluster' }, cwd: '/srv/svc' });
    expect(c.mgmtKubeconfig).toBe('in-cluster');
  });

  it('trusts every loopback spelling of the listen port while SVC_PUBLIC_URL is unset', () => {
    const local = loadConfig({ env: { ...secrets, SVC_LISTEN: '127.0.0.1:4100' }, cwd: '/' });
    expect(local.publicURL).toBe('http://localhost:4100');
    expect(local.trustedOrigins).toEqual(['http://localhost:4100', 'http://127.0.0.1:4100', 'http://[::1]:4100']);
    const pub = loadConfig({ env: { ...secrets, SVC_PUBLIC_URL: 'https://cd.example.com/' }, cwd: '/' });
    expect(pub.publicURL).toBe('https://cd.example.com');
    expect(pub.trustedOrigins).toEqual([]);
  });

  it('reads the internal channel settings, with the operator ServiceAccount as the default', () => {
    expect(loadConfig({ env: secrets, cwd: '/srv' }).channel).toEqual({
      operatorToken: undefined,
      operatorServiceAccounts: ['system:serviceaccount:svc-system:svc-operator'],
      serverURL: undefined,
      operatorTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
    });
    const c = loadConfig({
      env: {
        ...secrets,
        SVC_OPERATOR_TOKEN: 't'.repeat(32),
        SVC_OPERATOR_SERVICE_ACCOUNTS: 'system:serviceaccount:cd:op, system:serviceaccount:cd:op2',
        SVC_SERVER_URL: 'http://svc.cd.svc:3000/',
        SVC_OPERATOR_TOKEN_FILE: 'token',
      },
      cwd: '/srv',
    });
    expect(c.channel).toEqual({
      operatorToken: 't'.repeat(32),
      operatorServiceAccounts: ['system:serviceaccount:cd:op', 'system:serviceaccount:cd:op2'],
      serverURL: 'http://svc.cd.svc:3000',
      operatorTokenFile: '/srv/token',
    });
    expect(() =>
      loadConfig({
        env: { ...secrets, SVC_OPERATOR_TOKEN: 'short', SVC_OPERATOR_SERVICE_ACCOUNTS: 'admin', SVC_SERVER_URL: 'x' },
        cwd: '/',
      }),
    ).toThrow(/SVC_OPERATOR_TOKEN must be at least 32.*\n?.*SVC_OPERATOR_SERVICE_ACCOUNTS.*\n?.*SVC_SERVER_URL/s);
  });

  it("reads the operator's org ClusterRole the server binds in org namespaces (unset by default)", () => {
    expect(loadConfig({ env: secrets, cwd: '/' }).orgOperatorRole).toBeUndefined();
    const c = loadConfig({ env: { ...secrets, SVC_ORG_OPERATOR_ROLE: 'svc-operator-org' }, cwd: '/' });
    expect(c.orgOperatorRole).toBe('svc-operator-org');
    expect(() => loadConfig({ env: { ...secrets, SVC_ORG_OPERATOR_ROLE: 'Not A Name' }, cwd: '/' })).toThrow(
      /SVC_ORG_OPERATOR_ROLE "Not A Name" must be a ClusterRole name/,
    );
  });

  it('reports every problem at once', () => {
    let error: unknown;
    try {
      loadConfig({
        env: {
          NODE_ENV: 'production',
          SVC_LISTEN: 'everywhere',
          SVC_DATABASE_URL: 'mysql://x',
          SVC_TAG_POLL_INTERVAL: 'soon',
          SESSION_COOKIE_NAME: 'bad name',
          SVC_OUTBOUND_SCOPE: 'anywhere',
        },
        flags: { syncPeriod: '0s', leaderElect: 'maybe' },
        cwd: '/',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      'SVC_LISTEN "everywhere" must be host:port or :port',
      'SVC_DATABASE_URL must start with postgres://, postgresql:// or sqlite:',
      'AUTH_SECRET is required in production mode',
      'SVC_CREDENTIALS_KEY is required in production mode',
      'SESSION_COOKIE_NAME must be a valid cookie name',
      'SVC_TAG_POLL_INTERVAL "soon" must be a duration such as 30s, 5m or 1h',
      'SVC_OUTBOUND_SCOPE must be one of public, private, loopback',
      '--leader-elect must be true or false',
      '--sync-period must be at least 1000 ms',
    ]);
    expect((error as Error).message).toContain('SVC_LISTEN');
  });

  it('reads sharding from --sharding over SVC_OPERATOR_SHARDING and refuses other modes', () => {
    const devSecrets = { authSecret: 'd'.repeat(43), credentialsKey: Buffer.alloc(32, 7).toString('base64') };
    const env = { SVC_OPERATOR_SHARDING: 'cluster' };
    expect(loadConfig({ env, devSecrets, cwd: '/' }).operator.sharding).toBe('cluster');
    expect(loadConfig({ env, devSecrets, flags: { sharding: 'app' }, cwd: '/' }).operator.sharding).toBe('app');
    expect(() => loadConfig({ env: { SVC_OPERATOR_SHARDING: 'yes' }, devSecrets, cwd: '/' })).toThrow(
      /SVC_OPERATOR_SHARDING "yes" must be off, app or cluster/,
    );
  });

  it('uses generated dev secrets outside production only', () => {
    const devSecrets = { authSecret: 'd'.repeat(43), credentialsKey: Buffer.alloc(32, 7).toString('base64') };
    expect(loadConfig({ env: {}, devSecrets, cwd: '/' }).authSecret).toBe(devSecrets.authSecret);
    expect(() => loadConfig({ env: { NODE_ENV: 'production' }, devSecrets, cwd: '/' })).toThrow(
      /AUTH_SECRET is required in production mode/,
    );
  });

  it('rejects a short AUTH_SECRET and a credentials key that is not 32 bytes', () => {
    expect(() => loadConfig({ env: { AUTH_SECRET: 'short', SVC_CREDENTIALS_KEY: 'abcd' }, cwd: '/' })).toThrow(
      /AUTH_SECRET must be at least 32 characters[\s\S]*SVC_CREDENTIALS_KEY must be 32 bytes/,
    );
  });
});

describe('parseDuration and parseListenAddress', () => {
  it.each([
    ['60s', 60_000],
    ['5m', 300_000],
    ['1m30s', 90_000],
    ['250ms', 250],
    ['2', 2000],
    ['1h', 3_600_000],
  ])('parses %s', (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(['', 'soon', '5 minutes', '1d'])('refuses %j', (text) => expect(parseDuration(text)).toBeUndefined());
  it('reads the webhook retry settings and refuses impossible ones', () => {
    expect(loadConfig({ env: secrets, cwd: '/srv' }).webhookRetry).toEqual({
      baseMs: 10_000,
      maxMs: 3_600_000,
      attempts: 8,
    });
    const tuned = loadConfig({
      env: { ...secrets, SVC_WEBHOOK_RETRY_BASE: '250ms', SVC_WEBHOOK_RETRY_MAX: '2s', SVC_WEBHOOK_ATTEMPTS: '3' },
      cwd: '/srv',
    });
    expect(tuned.webhookRetry).toEqual({ baseMs: 250, maxMs: 2000, attempts: 3 });
    expect(() =>
      loadConfig({
        env: { ...secrets, SVC_WEBHOOK_RETRY_BASE: '1m', SVC_WEBHOOK_RETRY_MAX: '10s', SVC_WEBHOOK_ATTEMPTS: '0' },
        cwd: '/srv',
      }),
    ).toThrow(
      /SVC_WEBHOOK_ATTEMPTS must be a whole number from 1 to 20[\s\S]*SVC_WEBHOOK_RETRY_MAX must not be shorter/,
    );
  });

  it('parses addresses', () => {
    expect(parseListenAddress(':8080')).toEqual({ host: '', port: 8080 });
    expect(parseListenAddress('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseListenAddress('localhost')).toBeUndefined();
    expect(parseListenAddress(':70000')).toBeUndefined();
  });
});
