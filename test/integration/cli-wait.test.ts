/**
 * `svc app … --wait` (the real executable) against a real API server and operator on the harness plane with a real
 * git server: it follows the App's event stream and ends by the one operation-outcome rule
 *  - a Git rollback ends (exit 0) as soon as the App is Healthy at the rolled-back revision, although the App stays
 *    OutOfSync with the branch head by design, instead of waiting for its `--timeout` (issue 31 item 1);
 *  - on a pseudo-terminal reporting 0 columns (what `script` gives in CI) the progress is plain lines, bounded, and
 *    both a wait that ends and one that times out end when they should (issue 31 item 2: it used to redraw forever,
 *    1.7 GB in 13 minutes, ignoring `--timeout`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWith, type GitRepo, type GitServer, scriptRequirement, startGitServer } from '../harness/index.ts';
import { mintKey, type OrgApi, startOrgApi } from './api-support.ts';
import { CURSOR_UP, SVC, startCommand } from './cli-support.ts';
import {
  configMapYaml,
  deleteNamespaces,
  deploymentYaml,
  startTestOperator,
  type TestOperator,
} from './operator-support.ts';

describe('svc app … --wait', () => {
  let org: OrgApi;
  let op: TestOperator;
  let git: GitServer;
  let repo: GitRepo;
  let home: string;
  let env: Record<string, string>;
  const dest = `cliwait-${Math.random().toString(16).slice(2, 8)}`;

  /** Runs `command` (argv) with the CLI's environment; resolves when it exits. */
  const run = (command: string[], extraEnv: Record<string, string> = {}) =>
    startCommand(command, { ...env, ...extraEnv }).exited;
  const svc = (args: string[]) => run([process.execPath, SVC, ...args]);
  /** `svc args` on a pseudo-terminal made by `script` without a terminal of its own: it reports 0 columns. */
  const onZeroColumnPty = (shellCommand: string) =>
    run(['script', '--return', '--quiet', '--command', shellCommand, '/dev/null'], { TERM: 'xterm-256color' });
  const svcLine = (args: string) => `'${process.execPath}' '${SVC}' ${args}`;

  beforeAll(async () => {
    org = await startOrgApi('cliwait');
    git = await startGitServer();
    repo = await git.createRepo(`cliwait-${org.suffix}`, {
      'm/web.yaml': deploymentYaml('web', 1),
      'm/config.yaml': configMapYaml('settings', { mode: 'blue' }),
      // Never Ready (no node matches): a wait on this App runs until its timeout.
      'gated/web.yaml': deploymentYaml('web', 1, 'nginx:1.0', { nowhere: 'true' }),
    });
    op = await startTestOperator(org.orgNs);
    for (const [name, path] of [
      ['web', 'm'],
      ['gated', 'gated'],
    ]) {
      const created = await org.api.call('POST', '/api/v1/apps', {
        cookie: org.owner.cookie,
        body: {
          name,
          namespace: name === 'web' ? dest : `${dest}-g`,
          source: { type: 'Git', git: { repoURL: repo.url, path } },
        },
      });
      expect(created.status).toBe(201);
    }
    const key = (await mintKey(org.api, { cookie: org.owner.cookie }, { role: 'sync' })).key;
    await org.api.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(org.api.app.server.address() as AddressInfo).port}`;
    home = mkdtempSync(join(tmpdir(), 'svc-cli-wait-'));
    env = { PATH: process.env['PATH'] ?? '', HOME: home, SVC_SERVER: base, SVC_API_KEY: key };
  });

  afterAll(async () => {
    await op?.stop();
    await org?.api.close();
    await git?.stop();
    await deleteNamespaces(dest, `${dest}-g`);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('a Git rollback --wait ends Healthy at the old revision (OutOfSync with the head) without waiting for --timeout', async () => {
    const first = await repo.head();
    const synced = await svc(['app', 'sync', 'web', '--wait', '--timeout', '2m']);
    expect(synced.status, synced.stderr).toBe(0);
    await repo.commit({ 'm/config.yaml': configMapYaml('settings', { mode: 'green' }) }, 'green');
    const second = await svc(['app', 'sync', 'web', '--wait', '--timeout', '2m']);
    expect(second.status, second.stderr).toBe(0);

    const rolledBack = await svc(['app', 'rollback', 'web', first, '--wait', '--timeout', '3m']);
    expect(rolledBack.status, rolledBack.stderr).toBe(0);
    expect(rolledBack.stdout).toContain(`web: rolled back to ${first.slice(0, 12)} and Healthy (OutOfSync`);
    // Far from the 3 minutes it used to wait before exiting 1.
    expect(rolledBack.ms).toBeLessThan(60_000);
    const status = await org.api.call<Record<string, unknown>>('GET', `/api/v1/apps/${dest}/web/status`, {
      cookie: org.owner.cookie,
    });
    expect(status.body).toMatchObject({ sync_status: 'OutOfSync', health: 'Healthy', revision: first });
  });

  describeWith(scriptRequirement())('on a pseudo-terminal of 0 columns', () => {
    it('is such a terminal', async () => {
      const probe = await onZeroColumnPty(
        `'${process.execPath}' -e "process.stdout.write('tty=' + process.stderr.isTTY + ' columns=' + process.stderr.columns)"`,
      );
      expect(probe.stdout).toContain('tty=true columns=0');
    });

    it('prints plain, bounded lines and ends: exit 0 when the sync ends, exit 1 at --timeout', async () => {
      const done = await onZeroColumnPty(svcLine('app sync web --wait --timeout 2m'));
      expect(done.status, done.stdout).toBe(0);
      expect(done.stdout).toContain('web: Synced and Healthy');
      expect(done.stdout).not.toContain(CURSOR_UP);
      expect(done.stdout.length).toBeLessThan(16 * 1024);

      const timedOut = await onZeroColumnPty(svcLine('app sync gated --wait --timeout 15s'));
      expect(timedOut.status, timedOut.stdout).toBe(1);
      expect(timedOut.stdout).toContain('timed out after 15s waiting for gated');
      expect(timedOut.stdout).not.toContain(CURSOR_UP);
      expect(timedOut.stdout.length).toBeLessThan(16 * 1024);
      expect(timedOut.ms).toBeGreaterThanOrEqual(15_000);
      expect(timedOut.ms).toBeLessThan(40_000);
    });
  });
});
