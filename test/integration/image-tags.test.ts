/**
 * Moving tags (contract §2.3 tagPolicy, §3 operation rules 1–3, §2.8) with the real operator, the server's tag
 * poller (interval 2 s) and a real registry (htpasswd): a Pinned App stays on its recorded digest through Syncs
 * until a Deploy re-resolves the tag; a Follow App on the same tag is redeployed by the poller within an interval,
 * audited `app.deploy` with an empty user_id; Rollback to an older digest writes its tag back and holds across
 * resyncs, automated ones included, even after that tag moves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Registry, startRegistry } from '../harness/index.ts';
import { auditEntries } from './api-support.ts';
import { type ImageSuite, startImageSuite } from './image-support.ts';
import { getApp, getObject, patchSpec, waitForApp } from './operator-support.ts';

describe('moving tags: Pinned, Follow and Rollback', () => {
  let suite: ImageSuite;
  let registry: Registry;

  beforeAll(async () => {
    registry = await startRegistry({ htpasswd: { user: 'ci', password: 'tags-secret' } });
    suite = await startImageSuite('imgtags', { env: { SVC_TAG_POLL_INTERVAL: '2s' } });
    await suite.addRegistry('local', registry);
  });
  afterAll(async () => {
    await suite?.stop();
    await registry?.stop();
  });

  const image = (tag: string, tagPolicy: 'Pinned' | 'Follow', repository = 'team/web') => ({
    registryRef: 'local',
    repository,
    tag,
    tagPolicy,
  });
  const runningImage = async (dest: string, name: string) => {
    const d = await getObject('apps/v1', 'Deployment', dest, name);
    const spec = d?.['spec'] as { template: { spec: { containers: Array<{ image: string }> } } };
    return spec.template.spec.containers[0]?.image;
  };

  it('Follow redeploys within a poll interval; Pinned on the same tag stays through Syncs until Deploy', async () => {
    const first = await registry.pushImage('team/web', 'stable');
    const pinned = await suite.imageApp('pinned', image('stable', 'Pinned'));
    const follow = await suite.imageApp('follow', image('stable', 'Follow'));
    for (const [dest, name] of [
      [pinned, 'pinned'],
      [follow, 'follow'],
    ] as const) {
      expect((await suite.post(dest, name, 'sync')).status).toBe(200);
      await suite.settled(name, first.digest);
    }

    const moved = await registry.pushImage('team/web', 'stable');
    // The poller (not any request of ours) moves the Follow App.
    const followed = await suite.settled('follow', moved.digest);
    expect(followed.status?.operationState).toMatchObject({ kind: 'Deploy', triggeredBy: 'svc:tag-poller' });
    expect(followed.status?.observedRevision).toBe(moved.digest);
    expect(await runningImage(follow, 'follow')).toBe(`${registry.host}/team/web@${moved.digest}`);
    const [audit] = await auditEntries(suite.org.api, suite.org.owner, 'app.deploy', 'follow');
    expect(audit).toMatchObject({
      user_id: '',
      resource_type: 'app',
      details: { tag: 'stable', digest: moved.digest, previous: first.digest, trigger: 'poll' },
    });

    // The same poll saw the tag move and left the Pinned App alone; a Sync keeps its recorded digest.
    expect((await getApp(suite.org.orgNs, 'pinned'))?.status?.revision).toBe(first.digest);
    const sync = await suite.post(pinned, 'pinned', 'sync');
    const synced = await suite.succeeded('pinned', sync.body['operation_id']);
    expect(synced.status?.revision).toBe(first.digest);
    expect(await runningImage(pinned, 'pinned')).toBe(`${registry.host}/team/web@${first.digest}`);

    // Deploy re-resolves the tag live.
    const deploy = await suite.post(pinned, 'pinned', 'deploy');
    expect(deploy).toMatchObject({ status: 200, body: { tag: 'stable' } });
    const deployed = await suite.settled('pinned', moved.digest);
    expect(deployed.status?.previousRevisions).toEqual([first.digest]);
    expect(await runningImage(pinned, 'pinned')).toBe(`${registry.host}/team/web@${moved.digest}`);
  });

  it('Rollback writes the old tag back and holds across resyncs, automated ones too, after that tag moves', async () => {
    const v1 = await registry.pushImage('team/roll', '1');
    const v2 = await registry.pushImage('team/roll', '2');
    const dest = await suite.imageApp('roll', image('1', 'Pinned', 'team/roll'));
    await suite.post(dest, 'roll', 'sync');
    await suite.settled('roll', v1.digest);
    expect((await suite.post(dest, 'roll', 'deploy', { tag: '2' })).status).toBe(200);
    await suite.settled('roll', v2.digest);

    const rollback = await suite.post(dest, 'roll', 'rollback', { revision: v1.digest });
    expect(rollback).toMatchObject({ status: 200, body: { revision: v1.digest } });
    const rolled = await suite.settled('roll', v1.digest);
    expect(rolled.spec.source.image?.tag).toBe('1');
    expect(rolled.status?.previousRevisions?.[0]).toBe(v2.digest);
    expect((await auditEntries(suite.org.api, suite.org.owner, 'app.rollback', 'roll'))[0]?.['details']).toMatchObject({
      revision: v1.digest,
      tag: '1',
    });

    // Tag 1 moves on; resyncs (a manual one, then automated ones) keep the rolled-back digest.
    await registry.pushImage('team/roll', '1');
    const sync = await suite.post(dest, 'roll', 'sync');
    const synced = await suite.succeeded('roll', sync.body['operation_id']);
    expect(synced.status?.revision).toBe(v1.digest);
    await patchSpec(suite.org.orgNs, 'roll', { syncPolicy: { automated: true } });
    const generation = (await getApp(suite.org.orgNs, 'roll'))?.metadata.generation;
    const automated = await waitForApp(
      suite.org.orgNs,
      'roll',
      'automated resync',
      (a) => a.status?.observedGeneration === generation && a.status?.syncStatus === 'Synced',
    );
    expect(automated.status?.revision).toBe(v1.digest);
    expect(await runningImage(dest, 'roll')).toBe(`${registry.host}/team/roll@${v1.digest}`);
  });

  it('a clone of a rolled-back Pinned App runs the digest the original runs, not what the tag points at now', async () => {
    const v1 = await registry.pushImage('team/twin', 'stable');
    const dest = await suite.imageApp('twin', image('stable', 'Pinned', 'team/twin'));
    await suite.post(dest, 'twin', 'sync');
    await suite.settled('twin', v1.digest);
    const v2 = await registry.pushImage('team/twin', 'stable');
    expect((await suite.post(dest, 'twin', 'deploy')).status).toBe(200);
    await suite.settled('twin', v2.digest);
    expect((await suite.post(dest, 'twin', 'rollback', { revision: v1.digest })).status).toBe(200);
    await suite.settled('twin', v1.digest);

    const clone = await suite.post(dest, 'twin', 'clone', { name: 'twin-copy' });
    expect(clone.status, JSON.stringify(clone.body)).toBe(201);
    // The clone starts unsynced; its first Sync deploys the original's digest although the tag now points at v2.
    expect((await getApp(suite.org.orgNs, 'twin-copy'))?.status?.revision).toBeUndefined();
    const sync = await suite.post(dest, 'twin-copy', 'sync');
    expect(sync.status).toBe(200);
    const copied = await suite.settled('twin-copy', v1.digest);
    expect(copied.status?.revisionTags).toContainEqual({
      revision: v1.digest,
      tag: 'stable',
      image: `${registry.host}/team/twin`,
    });
    expect(await runningImage(dest, 'twin-copy')).toBe(`${registry.host}/team/twin@${v1.digest}`);
    expect(await runningImage(dest, 'twin')).toBe(`${registry.host}/team/twin@${v1.digest}`);

    // Deploy still re-resolves the tag live on the clone.
    expect((await suite.post(dest, 'twin-copy', 'deploy')).status).toBe(200);
    await suite.settled('twin-copy', v2.digest);
  });
});
