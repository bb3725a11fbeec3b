/**
 * `svc team`, `svc webhook`, `svc incident` and `svc remediation` (the real executable) against an API server on
 * loopback with an admin API key: a person's round trip through each, the webhook's signing secret printed once and
 * verified on a real delivery, and the CLI's exit codes for a missing team (4) and a bad id (2).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatSink, runCli, startChatSink } from '../harness/index.ts';
import { createOrg, mintKey, signUp, signUpMember, startTestApi, type TestApi, type TestUser } from './api-support.ts';
import { ReceiverVerifier } from './webhook-verify.ts';

describe('svc team, webhook, incident and remediation commands', () => {
  let api: TestApi;
  let sink: ChatSink;
  let owner: TestUser;
  let member: TestUser;
  let home: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    sink = await startChatSink();
    api = await startTestApi();
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const address = api.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    owner = await signUp(api, 'owner');
    const orgId = await createOrg(api, owner, 'cli-ops');
    member = await signUpMember(api, owner, orgId, 'member', 'viewer');
    const key = await mintKey(api, { cookie: owner.cookie }, { role: 'admin' });
    home = mkdtempSync(join(tmpdir(), 'svc-cli-ops-'));
    env = { PATH: process.env['PATH'] ?? '', HOME: home, SVC_SERVER: `http://127.0.0.1:${port}`, SVC_API_KEY: key.key };
  });
  afterAll(async () => {
    await api?.close();
    await sink?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const svc = (args: string[]) => runCli(args, env);

  it('manages a team and shows which team binding grants a member', async () => {
    expect(await svc(['team', 'create', 'oncall'])).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/^team oncall created/),
    });
    expect(await svc(['team', 'add-member', 'oncall', member.id])).toMatchObject({
      status: 0,
      stdout: `${member.email} added to team oncall\n`,
    });
    const teams = JSON.parse((await svc(['team', 'list', '-o', 'json'])).stdout) as {
      teams: { id: string; name: string }[];
    };
    const id = teams.teams.find((t) => t.name === 'oncall')?.id ?? '';
    expect(
      (await svc(['binding', 'create', 'team', id, 'sync', '--scope', 'deployment', '--scope-id', '/shop'])).status,
    ).toBe(0);
    const shown = await svc(['team', 'get', 'oncall']);
    expect(shown.stdout).toMatch(new RegExp(`Members:\\s+${member.email}`));
    expect(shown.stdout).toMatch(/Bindings:\s+sync at deployment \/shop/);
    expect((await svc(['team', 'rename', 'oncall', 'sre'])).status).toBe(0);
    expect((await svc(['team', 'get', 'oncall'])).status).toBe(4);
    expect(await svc(['team', 'remove-member', 'sre', member.id])).toMatchObject({ status: 0 });
    expect(await svc(['team', 'delete', 'sre'])).toMatchObject({ status: 0, stdout: 'team sre deleted\n' });
    expect((await svc(['can-i', 'deployment:manage', '-o', 'wide'])).stdout).toBe('yes via role Owner\n');
  });

  it('creates a webhook, prints its secret once, and lists deliveries; incidents and remediations round-trip', async () => {
    const created = await svc(['webhook', 'create', sink.url, '--events', 'incident.opened,incident.resolved']);
    expect(created.status).toBe(0);
    const secret = /signing secret \(shown once[^:]*\): (whsec_\S+)/.exec(created.stdout)?.[1] ?? '';
    const id = /webhook (whk_\w+) created/.exec(created.stdout)?.[1] ?? '';
    expect(secret).not.toBe('');
    expect((await svc(['webhook', 'list'])).stdout).not.toContain(secret);

    const opened = await svc(['incident', 'create', 'queue backlog', '--cause', 'Backlog', '--severity', 'critical']);
    const incident = /incident (inc_\w+) opened/.exec(opened.stdout)?.[1] ?? '';
    expect(incident).not.toBe('');
    const delivered = await sink.waitFor((r) => r.body.includes(incident));
    expect(new ReceiverVerifier(secret).verify(delivered.headers['x-svc-signature'], delivered.body)).toBe('ok');
    expect((await svc(['incident', 'create', 'again', '--cause', 'Backlog'])).stdout).toBe(
      `incident ${incident} is already open\n`,
    );
    expect((await svc(['incident', 'list', '--state', 'open'])).stdout).toMatch(
      /open\s+critical\s+Backlog\s+queue backlog/,
    );
    expect((await svc(['incident', 'ack', incident])).status).toBe(0);
    expect((await svc(['incident', 'resolve', incident, '--resolution', 'drained'])).status).toBe(0);
    const detail = await svc(['incident', 'get', incident]);
    expect(detail.stdout).toMatch(/Resolved:.*drained/);
    expect(detail.stdout).toMatch(/incident\.acknowledged/);

    const test = await svc(['webhook', 'test', id]);
    expect(test).toMatchObject({ status: 0, stdout: expect.stringMatching(/^delivered: 200/) });
    const deliveries = await svc(['webhook', 'deliveries', id]);
    expect(deliveries.stdout).toMatch(/webhook\.test\s+delivered\s+1\s+200/);
    expect(deliveries.stdout).toMatch(/incident\.opened\s+delivered/);
    expect((await svc(['remediation', 'list'])).stdout).toBe('No remediations.\n');
    expect((await svc(['remediation', 'approve', 'nope'])).status).toBe(2);
    expect((await svc(['remediation', 'reject', 'rem_missing'])).status).toBe(4);
    expect((await svc(['webhook', 'delete', id])).status).toBe(0);
  });
});
