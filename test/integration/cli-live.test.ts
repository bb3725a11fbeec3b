/**
 * `svc app diff|resources|logs` (the real executable) and the MCP tools app_diff and app_logs (through the official
 * SDK client) against a real API server and operator on the harness plane with a real git server: the diff exits 0
 * when in sync, 1 with the change after a commit (plain in a pipe, coloured in a terminal), 0 again after the sync;
 * logs come from a Pod (kwok plays the kubelet), with --tail, --since, --timestamps, -f ended by Ctrl-C; errors print
 * the server's message with the CLI's exit codes; a key that may not read the App is refused by the tools; the
 * history carries each revision's commit subject, author and date (API, `svc app history`, app_history).
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  describeWith,
  type GitRepo,
  type GitServer,
  startGitServer,
  tmuxRequirement,
  waitUntil,
} from '../harness/index.ts';
import { mintKey, type OrgApi, startOrgApi } from './api-support.ts';
import { ESCAPE, SVC, startSvc } from './cli-support.ts';
import { connectMcp } from './mcp-support.ts';
import {
  configMapYaml,
  deleteNamespaces,
  deploymentYaml,
  kube,
  startTestOperator,
  type TestOperator,
} from './operator-support.ts';

type Json = Record<string, any>;
type ToolResult = { isError?: boolean; structuredContent?: Json; content: { type: string; text?: string }[] };

describe('svc app diff, resources and logs; the app_diff and app_logs MCP tools', () => {
  let org: OrgApi;
  let op: TestOperator;
  let git: GitServer;
  let repo: GitRepo;
  let home: string;
  let base: string;
  let env: Record<string, string>;
  const keys: Record<string, string> = {};
  const clients: Client[] = [];
  const dest = `clilive-${Math.random().toString(16).slice(2, 8)}`;
  const status = async () =>
    (await org.api.call<Json>('GET', `/api/v1/apps/${dest}/web/status`, { cookie: org.owner.cookie })).body;

  /** Starts `svc args` against the server with the read key; `output` fills as it runs. */
  const startCli = (args: string[], extraEnv: Record<string, string> = {}) => startSvc(args, { ...env, ...extraEnv });
  const svc = (args: string[], extraEnv: Record<string, string> = {}) => startCli(args, extraEnv).exited;

  async function tool(key: string, name: string, args: Json): Promise<ToolResult> {
    const session = await connectMcp(base, key);
    clients.push(session.client);
    return session.call(name, args);
  }
  async function toolNames(key: string): Promise<string[]> {
    const session = await connectMcp(base, key);
    clients.push(session.client);
    return session.toolNames();
  }

  beforeAll(async () => {
    org = await startOrgApi('clilive');
    git = await startGitServer();
    repo = await git.createRepo(`clilive-${org.suffix}`, {
      'm/web.yaml': deploymentYaml('web', 1),
      'm/config.yaml': configMapYaml('settings', { mode: 'blue' }),
    });
    op = await startTestOperator(org.orgNs);
    const created = await org.api.call('POST', '/api/v1/apps', {
      cookie: org.owner.cookie,
      body: {
        name: 'web',
        namespace: dest,
        source: { type: 'Git', git: { repoURL: repo.url, path: 'm' } },
        // With prune, the sync deletes the ConfigMap the commit drops, so the diff is empty after it.
        sync_policy: { prune: true },
      },
    });
    expect(created.status).toBe(201);
    const owner = { cookie: org.owner.cookie };
    keys['read'] = (await mintKey(org.api, owner, { role: 'read' })).key;
    keys['sync'] = (await mintKey(org.api, owner, { role: 'sync' })).key;
    keys['elsewhere'] = (
      await mintKey(org.api, owner, { role: 'read', scope: 'deployment', scope_id: '/somewhere-else' })
    ).key;
    keys['statusOnly'] = (await mintKey(org.api, owner, { name: 'agent', role: 'read', tools: ['app_status'] })).key;
    await org.api.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(org.api.app.server.address() as AddressInfo).port}`;
    home = mkdtempSync(join(tmpdir(), 'svc-cli-live-'));
    env = { PATH: process.env['PATH'] ?? '', HOME: home, SVC_SERVER: base, SVC_API_KEY: keys['read'] as string };
    await waitUntil(async () => (await status())['sync_status'] !== 'Unknown', { what: 'first reconcile' });
    const synced = await svc(['app', 'sync', 'web', '--wait', '--timeout', '3m'], {
      SVC_API_KEY: keys['sync'] as string,
    });
    expect(synced.status, synced.stderr).toBe(0);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await op?.stop();
    await git?.stop();
    await org?.api.close();
    await deleteNamespaces(dest);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('diff: exit 0 and nothing on stdout when in sync; -o json is the structured answer', async () => {
    const plain = await svc(['app', 'diff', 'web']);
    expect(plain).toMatchObject({ status: 0, stdout: '' });
    expect(plain.stderr).toBe('web: Synced: 0 changed, 0 missing, 0 extra, 2 same\n');
    const json = await svc(['app', 'diff', `${dest}/web`, '-o', 'json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ sync_status: 'Synced', summary: { same: 2, changed: 0 } });
  });

  it('diff: after a commit, exit 1 with the change as a plain unified diff in a pipe; yaml parses', async () => {
    await repo.commit({ 'm/web.yaml': deploymentYaml('web', 2), 'm/config.yaml': null }, 'scale, drop the config');
    await waitUntil(async () => (await status())['sync_status'] === 'OutOfSync', { what: 'operator sees the head' });
    const shown = await svc(['app', 'diff', 'web']);
    expect(shown.status).toBe(1);
    expect(shown.stdout).toMatch(/^--- live\/.*Deployment.*web$/m);
    expect(shown.stdout).toMatch(/^-\s+replicas: 1$/m);
    expect(shown.stdout).toMatch(/^\+\s+replicas: 2$/m);
    expect(shown.stdout).not.toMatch(ESCAPE);
    expect(shown.stderr).toBe('web: OutOfSync: 1 changed, 0 missing, 1 extra, 0 same\n');
    const yaml = await svc(['app', 'diff', 'web', '-o', 'yaml']);
    expect(yaml.status).toBe(1);
    const answer = parse(yaml.stdout) as Json;
    expect(answer['summary']).toEqual({ same: 0, changed: 1, missing: 0, extra: 1 });
    expect(answer['revision']['compared']).toBe(await repo.head());
  });

  it('app_diff (read key): the counts, the objects that differ without their YAML, the unified diff', async () => {
    const result = await tool(keys['read'] as string, 'app_diff', { namespace: dest, name: 'web' });
    expect(result.isError).toBeFalsy();
    const d = result.structuredContent as Json;
    expect(d).toMatchObject({ sync_status: 'OutOfSync', summary: { changed: 1, extra: 1 }, truncated: false });
    expect((d['objects'] as Json[]).map((o) => `${o['kind']}:${o['status']}`).sort()).toEqual([
      'ConfigMap:extra',
      'Deployment:changed',
    ]);
    expect(d['objects'][0]).not.toHaveProperty('live');
    expect(d['unified']).toMatch(/^\+\s+replicas: 2$/m);
  });

  describeWith(tmuxRequirement())('in a terminal', () => {
    it('diff colours removals and additions', async () => {
      const socket = `svc-cli-live-${org.suffix}`;
      const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
      const command = [
        'env',
        ...Object.entries({ ...env, TERM: 'xterm-256color' }).map(([k, v]) => `${k}=${v}`),
        process.execPath,
        SVC,
        'app',
        'diff',
        'web',
      ]
        .map((w) => `'${w.replaceAll("'", "'\\''")}'`)
        .join(' ');
      tmux('new-session', '-d', '-s', 'diff', '-x', '160', '-y', '60', `${command}; echo EXIT=$?; sleep 60`);
      try {
        let screen = '';
        await waitUntil(
          async () => {
            screen = tmux('capture-pane', '-p', '-e', '-t', 'diff');
            return /EXIT=\d/.test(screen);
          },
          { what: 'svc app diff in tmux', timeoutMs: 60_000 },
        );
        expect(screen).toContain('EXIT=1');
        // Red removal, green addition (SGR 31 / 32).
        expect(screen).toMatch(new RegExp(`${String.fromCharCode(27)}\\[31m-\\s+replicas: 1`));
        expect(screen).toMatch(new RegExp(`${String.fromCharCode(27)}\\[32m\\+\\s+replicas: 2`));
      } finally {
        tmux('kill-server');
      }
    });
  });

  it('diff: after the sync, exit 0 again; errors print the server message with their exit codes', async () => {
    const synced = await svc(['app', 'sync', 'web', '--wait', '--timeout', '3m'], {
      SVC_API_KEY: keys['sync'] as string,
    });
    expect(synced.status, synced.stderr).toBe(0);
    expect(await svc(['app', 'diff', 'web'])).toMatchObject({ status: 0, stdout: '' });
    const missing = await svc(['app', 'diff', 'nope', '-n', dest]);
    expect(missing.status).toBe(4);
    expect(missing.stderr).toMatch(/^error: .*nope.*\n$/);
    // A port that was free a moment ago: nothing listens there.
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const unreachable = await svc(['app', 'diff', `${dest}/web`], { SVC_SERVER: `http://127.0.0.1:${port}` });
    expect(unreachable).toMatchObject({
      status: 5,
      stderr: `error: cannot reach http://127.0.0.1:${port}: connection refused\n`,
    });
  });

  it('history: each revision with its commit subject, author and date (API, CLI, app_history)', async () => {
    const head = await repo.head();
    const answer = await org.api.call<Json>('GET', `/api/v1/apps/${dest}/web/history`, { cookie: org.owner.cookie });
    expect(answer.status).toBe(200);
    const revisions = answer.body['revisions'] as Json[];
    expect(revisions.map((r) => [r['subject'], r['author']])).toEqual([
      ['scale, drop the config', 'svc test'],
      ['initial commit', 'svc test'],
    ]);
    expect(revisions[0]?.['revision']).toBe(head);
    expect(revisions[1]?.['revision']).toBe(answer.body['previous_revisions'][0]);
    for (const r of revisions) expect(Math.abs(Date.now() - Date.parse(r['date']))).toBeLessThan(3_600_000);

    const table = await svc(['app', 'history', 'web']);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^REVISION\s+CURRENT\s+DATE\s+AUTHOR\s+SUBJECT$/m);
    expect(table.stdout).toMatch(
      new RegExp(
        `^${head.slice(0, 12)}\\s+yes\\s+${String(revisions[0]?.['date']).replace('+', '\\+')}\\s+svc test\\s+scale, drop the config$`,
        'm',
      ),
    );
    expect(table.stdout).toMatch(
      new RegExp(`^${revisions[1]?.['revision'].slice(0, 12)}\\s+\\S+\\s+svc test\\s+initial commit$`, 'm'),
    );

    const tool_ = await tool(keys['read'] as string, 'app_history', { namespace: dest, name: 'web' });
    expect(tool_.isError).toBeFalsy();
    expect(tool_.structuredContent?.['revisions']).toEqual(revisions);
  });

  it('resources: the tree as a table (indented children), -o json parses', async () => {
    const table = await svc(['app', 'resources', 'web']);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/^KIND\s+NAMESPACE\s+NAME\s+SYNC\s+HEALTH$/m);
    expect(table.stdout).toMatch(new RegExp(`^Deployment\\s+${dest}\\s+web\\s+Synced\\s+Healthy$`, 'm'));
    expect(table.stdout).toMatch(/^ {2}ReplicaSet\s+/m);
    expect(table.stdout).toMatch(/^ {4}Pod\s+.*Healthy$/m);
    const json = JSON.parse((await svc(['app', 'resources', 'web', '-o', 'json'])).stdout) as { nodes: Json[] };
    expect(json.nodes.filter((n) => n['kind'] === 'Pod')).toHaveLength(2);
  });

  it('logs: a Pod’s lines, plain; --timestamps, --tail, --since, --pod and --container', async () => {
    const logs = await svc(['app', 'logs', 'web']);
    expect(logs.status, logs.stderr).toBe(0);
    expect(logs.stdout).toBe('svc fake pod: started\nsvc fake pod: serving on :80\n');
    // Two Pods after scaling to 2: which one was read is said on stderr.
    expect(logs.stderr).toMatch(/^pod web-\S+ \(1 of 2; --pod to choose another\)\n$/);
    const stamped = await svc(['app', 'logs', 'web', '--timestamps', '--tail', '1']);
    expect(stamped.stdout).toBe('2026-01-01T00:00:01.000000000Z svc fake pod: serving on :80\n');
    // The fake Pod's lines are from 2026-01-01: none is newer than an hour.
    const since = await svc(['app', 'logs', 'web', '--since', '1h']);
    expect(since).toMatchObject({ status: 0, stdout: '' });
    const notOurs = await svc(['app', 'logs', 'web', '--pod', 'kube-apiserver']);
    expect(notOurs).toMatchObject({ status: 4, stderr: "error: pod kube-apiserver is not one of app web's\n" });
    const container = await svc(['app', 'logs', 'web', '-c', 'nope']);
    expect(container.status).toBe(4);
    expect(container.stderr).toMatch(/^error: pod web-\S+ has no container nope\n$/);
    expect((await svc(['app', 'logs', 'web', '--tail', 'lots'])).status).toBe(2);
  });

  it('logs -f streams until Ctrl-C, which ends it cleanly', async () => {
    const run = startCli(['app', 'logs', 'web', '-f']);
    await waitUntil(async () => run.output.stdout.includes('serving on :80'), { what: 'the followed log' });
    expect(run.output.status).toBeNull();
    run.child.kill('SIGINT');
    const ended = await run.exited;
    expect(ended.status).toBe(0);
    expect(ended.stderr).not.toMatch(/error|at /);
  });

  it('app_logs: bounded lines of a Pod; a key that may not read the App, or lacks the tool, is refused', async () => {
    const result = await tool(keys['read'] as string, 'app_logs', { namespace: dest, name: 'web', tail: 1 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      pod: expect.stringMatching(/^web-/),
      container: 'main',
      lines: ['2026-01-01T00:00:01.000000000Z svc fake pod: serving on :80'],
      truncated: false,
    });
    const elsewhere = keys['elsewhere'] as string;
    expect(await toolNames(elsewhere)).toEqual(expect.arrayContaining(['app_diff', 'app_logs']));
    for (const name of ['app_diff', 'app_logs']) {
      const refused = await tool(elsewhere, name, { namespace: dest, name: 'web' });
      expect(refused).toMatchObject({ isError: true, structuredContent: { status: 403 } });
      expect(JSON.stringify(refused)).not.toContain('svc fake pod');
    }
    const statusOnly = keys['statusOnly'] as string;
    expect(await toolNames(statusOnly)).toEqual(['app_status']);
    await expect(tool(statusOnly, 'app_logs', { namespace: dest, name: 'web' })).rejects.toThrow(/app_logs/);
  });

  it('completes the new commands for the shell', async () => {
    const words = await svc(['complete', '--', 'app', '']);
    const suggested = words.stdout.split('\n').map((l) => l.split('\t')[0]);
    expect(suggested).toEqual(expect.arrayContaining(['diff', 'logs', 'resources']));
    expect((await svc(['complete', '--', 'app', 'logs', 'web', '--'])).stdout).toContain('--follow');
  });

  it('diff: an out-of-band scale names the drifted field and its new owner, exit 1', async () => {
    const k = kube();
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: dest };
    await k.client.request(await k.path(ref, 'scale'), {
      method: 'PATCH',
      query: { fieldManager: 'kubectl' },
      body: { spec: { replicas: 5 } },
      contentType: 'application/merge-patch+json',
    });
    const shown = await svc(['app', 'diff', 'web']);
    expect(shown.status, shown.stderr).toBe(1);
    expect(shown.stderr).toContain('Deployment/web: drifted: spec.replicas (now owned by kubectl)\n');
    expect(shown.stderr).toMatch(/^web: OutOfSync \(drifted\): 1 changed/m);
  });
});
