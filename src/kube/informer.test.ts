import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { connect } from './connect.ts';
import {
  Informer,
  type InformerEvent,
  type InformerObject,
  type InformerStore,
  MapStore,
  withoutManagedFields,
} from './informer.ts';

// observe/subscribe need no server: the client is never asked (start() is not called).
const client = connect({
  kubeconfigYaml: stringify({
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
    contexts: [{ name: 'x', context: { cluster: 'c' } }],
    'current-context': 'x',
  }),
}).client;
const obj = (name: string, rv: string): InformerObject => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});
const summary = (e: InformerEvent<InformerObject>) =>
  `${e.type} ${e.obj.metadata.name}@${e.obj.metadata.resourceVersion}`;

describe('Informer subscriptions and own writes', () => {
  it('tells all subscribers every change, and key subscribers only their object, until unsubscribed', () => {
    const seenByHandler: string[] = [];
    const informer = new Informer<InformerObject>(client, '/x', {
      onUpsert: (o, old) => seenByHandler.push(`${o.metadata.resourceVersion}<${old?.metadata.resourceVersion ?? '-'}`),
    });
    const all: string[] = [];
    const web: string[] = [];
    informer.subscribe((e) => all.push(summary(e)));
    const stop = informer.subscribe((e) => web.push(summary(e)), 'ns/web');
    informer.observe(obj('web', '1'));
    informer.observe(obj('api', '2'));
    informer.observe(obj('web', '1')); // the same version again: no news
    informer.observe(obj('web', '3'));
    informer.observeDeleted(obj('web', '4'));
    informer.observeDeleted(obj('gone', '5')); // never held: nothing to tell
    stop();
    informer.observe(obj('web', '6'));
    expect(all).toEqual(['upsert web@1', 'upsert api@2', 'upsert web@3', 'delete web@3', 'upsert web@6']);
    expect(web).toEqual(['upsert web@1', 'upsert web@3', 'delete web@3']);
    expect(seenByHandler).toEqual(['1<-', '2<-', '3<1', '6<-']);
    expect(informer.get('ns/web')?.metadata.resourceVersion).toBe('6');
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['api', 'web']);
  });

  it('lets its store decide what is news, and a throwing listener harms no other', () => {
    // A store that refuses versions older than the one it holds.
    class Ordered extends MapStore<InformerObject> implements InformerStore<InformerObject> {
      override upsert(o: InformerObject): boolean {
        const held = this.get(`ns/${o.metadata.name}`);
        if (held && Number(held.metadata.resourceVersion) >= Number(o.metadata.resourceVersion)) return false;
        return super.upsert(o);
      }
    }
    const errors: unknown[] = [];
    const informer = new Informer<InformerObject>(
      client,
      '/x',
      { onError: (e) => errors.push(e) },
      { store: new Ordered() },
    );
    const seen: string[] = [];
    informer.subscribe(() => {
      throw new Error('listener bug');
    });
    informer.subscribe((e) => seen.push(summary(e)));
    informer.observe(obj('web', '10'));
    informer.observe(obj('web', '9'));
    expect(seen).toEqual(['upsert web@10']);
    expect(errors).toHaveLength(1);
  });

  it('passes every object through its transform before storing and telling', () => {
    type Labelled = InformerObject & { metadata: { managedFields?: unknown[] } };
    const informer = new Informer<Labelled>(
      client,
      '/x',
      {},
      {
        labelSelector: 'cd.svc.space/app',
        transform: withoutManagedFields,
      },
    );
    const told: Labelled[] = [];
    informer.subscribe((e) => told.push(e.obj));
    const input = { metadata: { name: 'web', namespace: 'ns', resourceVersion: '1', managedFields: [{}] } };
    informer.observe(input);
    expect(informer.get('ns/web')).toEqual({ metadata: { name: 'web', namespace: 'ns', resourceVersion: '1' } });
    expect(told).toEqual([informer.get('ns/web')]);
    expect(input.metadata.managedFields).toEqual([{}]);
  });
});
