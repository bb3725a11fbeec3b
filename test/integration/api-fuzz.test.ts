/**
 * API fuzzing from the OpenAPI document (issue 17 part 1, issue 23): schemathesis (pinned, in a virtualenv built once
 * into ~/.cache/svc by scripts/build-binaries.sh) against a real `svc start` on the harness's management plane, every
 * operation of /api/v1/openapi.json, once with an org-wide admin API key and once with a read key, with schemathesis's
 * full default check set (every check it has, test/fuzz/schemathesis.toml says how two are configured and why) plus
 * `error_body` (test/fuzz/hooks.py: every 4xx/5xx is `{"error": string}`). Among them: no 5xx but documented 502/503,
 * no undocumented status, content type or header, answers that match their schemas, schema-valid requests accepted
 * and schema-violating ones refused (the document is exact), 405 with `Allow` for an undeclared method, and 401 when
 * the key is taken away or replaced. Each key's run is two: the coverage phase to its end (every operation, the
 * boundaries of every schema), then fuzzing and the stateful phase (over the links schemathesis infers) within the
 * time budget. The two keys run at the same time. Each key prints one line "api fuzz (<key>): N passed, N failed, …".
 *
 * Time: SVC_FUZZ_SECONDS (default 120) is the budget of the fuzzing and stateful phases, split between the two keys
 * (the coverage phase takes what it takes, about three minutes a key); set it higher for a long run (e.g.
 * SVC_FUZZ_SECONDS=1800). SVC_FUZZ_SEED fixes the seed to replay a run.
 *
 * Afterwards the leak scanner (test/harness/leak-scan.ts) looks for the run's secrets — the user's password, both
 * API keys, the session token, a kubeconfig token sent to the cluster routes — in svc's log output (at info level:
 * every request is logged) and in its data directory (database included; the session token is left out there, a
 * session is its own token's record).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { binary, registerSecret, repoRoot, type SvcProcess, startSvc } from '../harness/index.ts';
import { findLeaks } from '../harness/leak-scan.ts';

const budgetSeconds = Number(process.env['SVC_FUZZ_SECONDS'] ?? 120);
const seed = process.env['SVC_FUZZ_SEED'] ?? String(randomBytes(3).readUIntBE(0, 3));

/** The figures of one schemathesis run, from its JSON report. */
interface FuzzResult {
  exitCode: number;
  generated: number;
  withFailures: number;
  failures: Array<{ code: string; title: string; count: number; operations: string[] }>;
  tested: number;
  total: number;
  output: string;
}

/** What one schemathesis run does: its phases and, for the open-ended ones, a time budget. */
type Phases = { phases: 'coverage' } | { phases: 'fuzzing,stateful'; seconds: number };

/**
 * Runs schemathesis against `base` with `key` (through the document's `apiKey` security scheme, so its auth checks
 * know which credential is the real one), reading its JSON report. Every check runs: no `--checks`.
 */
function fuzz(base: string, key: string, keepKeyIds: string[], run: Phases): Promise<FuzzResult> {
  const reports = mkdtempSync(join(tmpdir(), 'svc-fuzz-'));
  const seconds = 'seconds' in run ? run.seconds : 900;
  const args = [
    '--config-file',
    join(repoRoot, 'test/fuzz/schemathesis.toml'),
    'run',
    `${base}/api/v1/openapi.json`,
    '--url',
    base,
    '--phases',
    run.phases,
    ...('seconds' in run ? ['--max-time', String(seconds)] : []),
    // One worker: with two, CPython 3.11's ast.parse (used by hypothesis to describe filters) failed a run with
    // "SystemError: AST constructor recursion depth mismatch", a fuzzer error, not a finding.
    '--workers',
    '1',
    '--seed',
    seed,
    // A diff renders the App's source: the fuzzer's Apps name Git hosts that may never answer, and a git call is
    // bounded at 120 s (src/git/exec.ts); an answer within that is an answer, not a network error.
    '--request-timeout',
    '150',
    '--report',
    'json',
    '--report-dir',
    reports,
    '--no-color',
  ];
  return new Promise((resolve, reject) => {
    execFile(
      binary('schemathesis', 'st'),
      args,
      {
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: process.env['HOME'] ?? '',
          SCHEMATHESIS_HOOKS: join(repoRoot, 'test/fuzz/hooks.py'),
          SVC_FUZZ_KEY: key,
          SVC_FUZZ_KEEP_KEY_IDS: keepKeyIds.join(','),
        },
        // schemathesis keeps a `.schemathesis/` cache in its working directory: not in the repository.
        cwd: reports,
        maxBuffer: 64 * 1024 * 1024,
        timeout: (seconds + 120) * 1000,
      },
      (err, stdout, stderr) => {
        try {
          const file = readdirSync(reports).find((f) => f.endsWith('.json'));
          if (!file) throw new Error(`schemathesis wrote no report (${err?.message})\n${stdout}\n${stderr}`);
          const report = JSON.parse(readFileSync(join(reports, file), 'utf8'));
          resolve({
            exitCode: report.exit_code,
            generated: report.test_cases.generated,
            withFailures: report.test_cases.with_failures,
            failures: report.failures,
            tested: report.operations.tested,
            total: report.operations.total,
            output: stdout + stderr,
          });
        } catch (e) {
          reject(e);
        } finally {
          rmSync(reports, { recursive: true, force: true });
        }
      },
    );
  });
}

/** The two runs of one key as one result. */
function merged(a: FuzzResult, b: FuzzResult): FuzzResult {
  return {
    exitCode: a.exitCode || b.exitCode,
    generated: a.generated + b.generated,
    withFailures: a.withFailures + b.withFailures,
    failures: [...a.failures, ...b.failures],
    tested: Math.max(a.tested, b.tested),
    total: a.total,
    output: `${a.output}\n${b.output}`,
  };
}

/** The one line a reader of the CI log counts. */
function summary(label: string, r: FuzzResult): string {
  const byCode = r.failures.map((f) => `${f.code} ${f.title}: ${f.count}`).join(', ') || 'none';
  return `api fuzz (${label}, seed ${seed}): ${r.generated - r.withFailures} passed, ${r.withFailures} failed; ${r.tested}/${r.total} operations; failures: ${byCode}`;
}

describe('API fuzzing with schemathesis against svc start', () => {
  const slug = `fuzz-${randomBytes(3).toString('hex')}`;
  const password = `fuzz-pw-${randomBytes(12).toString('hex')}`;
  const canaryToken = `svc-leak-canary-${randomBytes(16).toString('hex')}`;
  let svc: SvcProcess;
  let cookie = '';
  let sessionToken = '';
  const keys: Record<'admin' | 'read', { id: string; key: string }> = {
    admin: { id: '', key: '' },
    read: { id: '', key: '' },
  };

  async function call(method: string, path: string, body?: unknown, key?: string) {
    const headers: Record<string, string> = { origin: svc.base };
    if (key) headers['authorization'] = `Bearer ${key}`;
    else if (cookie) headers['cookie'] = cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${svc.base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  beforeAll(async () => {
    // info: every request is logged, so the leak scan below reads the whole run.
    svc = await startSvc({
      kubeconfig: inject('mgmtKubeconfig'),
      watchNamespace: `org-${slug}`,
      publicURL: null,
      env: { SVC_LOG_LEVEL: 'info' },
    });
    const signUp = await call('POST', '/api/auth/sign-up/email', {
      email: `${slug}@example.test`,
      password,
      name: 'Fuzz',
    });
    expect(signUp.status).toBe(200);
    sessionToken = JSON.parse(signUp.text).token;
    cookie = signUp.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    expect((await call('POST', '/api/auth/organization/create', { name: 'Fuzz', slug })).status).toBe(200);
    for (const role of ['admin', 'read'] as const) {
      const minted = await call('POST', '/api/v1/auth/api-keys', { name: `fuzz-${role}`, role, expires_days: 1 });
      expect(minted.status).toBe(201);
      const { id, key } = JSON.parse(minted.text);
      keys[role] = { id, key };
    }
  });

  afterAll(() => svc?.stop());

  // The two keys' runs go side by side (two schemathesis processes, one worker each: see fuzz()): each is mostly
  // the fuzzer's own CPU, so on two cores the pair takes little more than one.
  for (const role of ['admin', 'read'] as const) {
    it.concurrent(
      `finds no failure of schemathesis's default checks (and no error without {"error"}) with a ${role} key`,
      async () => {
        const keep = [keys.admin.id, keys.read.id];
        const coverage = await fuzz(svc.base, keys[role].key, keep, { phases: 'coverage' });
        const seconds = Math.max(10, Math.floor(budgetSeconds / 2));
        const fuzzing = await fuzz(svc.base, keys[role].key, keep, { phases: 'fuzzing,stateful', seconds });
        const result = merged(coverage, fuzzing);
        console.log(summary(`${role} key`, result));
        expect(result.tested, 'every operation of the document was exercised').toBe(result.total);
        expect(result.generated).toBeGreaterThan(result.total);
        expect(result.failures, result.output.slice(-20_000)).toEqual([]);
        expect(result.exitCode, result.output.slice(-5_000)).toBe(0);
        // The key stayed valid through the run (the stateful phase would otherwise have fuzzed 401s only).
        expect((await call('GET', '/api/v1/auth/me', undefined, keys[role].key)).status).toBe(200);
      },
      (budgetSeconds / 2 + 900 + 120) * 1000,
    );
  }

  it('sends a kubeconfig token through the cluster routes; no answer returns it', async () => {
    const server = /server:\s*(\S+)/.exec(readFileSync(inject('mgmtKubeconfig'), 'utf8'))?.[1];
    expect(server).toBeTruthy();
    const kubeconfig = [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: c, cluster: { server: "${server}", insecure-skip-tls-verify: true } }]`,
      `users: [{ name: u, user: { token: ${canaryToken} } }]`,
      'contexts: [{ name: x, context: { cluster: c, user: u } }]',
      'current-context: x',
    ].join('\n');
    const answers = [
      await call('POST', '/api/v1/clusters/test', { server_url: server, kubeconfig }, keys.admin.key),
      await call('POST', '/api/v1/clusters', { name: 'canary', server_url: server, kubeconfig }, keys.admin.key),
      await call('GET', '/api/v1/clusters', undefined, keys.admin.key),
      await call('GET', '/api/v1/clusters/canary', undefined, keys.read.key),
    ];
    for (const a of answers) {
      expect(a.status).toBeLessThan(500);
      expect(a.text).not.toContain(canaryToken);
    }
  });

  it('leaves no secret of the run in the logs or, apart from the session record, in the data directory', () => {
    const secrets = {
      password,
      'admin API key': keys.admin.key,
      'read API key': keys.read.key,
      'kubeconfig token': canaryToken,
    };
    // The run-wide leak check also looks for them in the plane's Events and App statuses (test/harness/leak-registry.ts).
    for (const [label, value] of Object.entries(secrets)) registerSecret(`api-fuzz ${label}`, value);
    const log = svc.output.join('');
    expect(log.length, 'svc logged the run').toBeGreaterThan(0);
    const leaks = [
      ...findLeaks({ ...secrets, 'session token': sessionToken }, { texts: { 'svc log': log } }),
      ...findLeaks(secrets, { dirs: [svc.dataDir] }),
    ];
    expect(leaks).toEqual([]);
  });
});
