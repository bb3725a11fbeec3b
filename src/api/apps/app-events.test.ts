import { describe, expect, it } from 'vitest';
import type { AppResource } from '../../core/app-schema.ts';
import type { InformerEvent } from '../../kube/index.ts';
import { AppEventHub, type AppEventSource, type StreamClient } from './app-events.ts';
import { appView } from './view.ts';
import { appJson } from './view-json.ts';

/** The App cache's side of the hub, driven by the test (the hub's only input). */
class Source implements AppEventSource {
  listeners: ((e: InformerEvent<AppResource>) => void)[] = [];
  version: string | undefined = '100';
  synced = true;
  subscribe(l: (e: InformerEvent<AppResource>) => void) {
    this.listeners.push(l);
    return () => {
      this.listeners = this.listeners.filter((x) => x !== l);
    };
  }
  entryOf(app: AppResource) {
    const view = appView(app);
    return { app, view, json: appJson(view) };
  }
  emit(type: 'upsert' | 'delete', app: AppResource, old?: AppResource) {
    if (type === 'upsert') this.version = app.metadata.resourceVersion;
    for (const l of this.listeners) l(type === 'upsert' ? { type, obj: app, old } : { type, obj: app });
  }
}

function app(name: string, rv: string, destination = 'shop', org = 'org-acme'): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name, namespace: org, resourceVersion: rv },
    spec: {
      source: { type: 'Git', git: { repoURL: 'https://git.example/a.git' } },
      destination: { namespace: destination },
    },
  } as AppResource;
}

function client(namespace: string, scopes: string[] | 'all', room = true) {
  const frames: string[] = [];
  let closed = false;
  const c: StreamClient = {
    namespace,
    may: (scope) => scopes === 'all' || scopes.includes(scope),
    write: (f) => {
      frames.push(f);
      return room;
    },
    close: () => {
      closed = true;
    },
  };
  return {
    c,
    frames,
    get closed() {
      return closed;
    },
    ids: () => frames.flatMap((f) => /^id: (.*)$/m.exec(f)?.[1] ?? []),
    events: () => frames.map((f) => /^event: (.*)$/m.exec(f)?.[1]),
  };
}

describe('AppEventHub', () => {
  it('serializes a change once and writes it only to clients of the org allowed on its scope', () => {
    const source = new Source();
    const hub = new AppEventHub(source);
    hub.start();
    const owner = client('org-acme', 'all');
    const scoped = client('org-acme', ['/web']);
    const other = client('org-other', 'all');
    for (const x of [owner, scoped, other]) hub.connect(x.c, undefined);
    source.emit('upsert', app('a', '101'));
    source.emit('upsert', app('b', '102', 'web'));
    expect(owner.ids()).toEqual(['101', '102']);
    expect(scoped.ids()).toEqual(['102']);
    expect(other.ids()).toEqual([]);
    expect(owner.frames[2]).toBe(scoped.frames[1]);
    expect(owner.frames[1]).toContain('"type":"upsert","app":{"name":"a"');
  });

  it('tells a client that lost sight of an App (moved to a scope it cannot read) that it is gone', () => {
    const source = new Source();
    const hub = new AppEventHub(source);
    hub.start();
    const scoped = client('org-acme', ['/web']);
    hub.connect(scoped.c, undefined);
    source.emit('upsert', app('b', '102', 'shop'), app('b', '101', 'web'));
    expect(scoped.frames[1]).toContain('"type":"delete"');
  });

  it('resumes after an id it sent, after a version from another replica, and resets when it cannot', () => {
    const source = new Source();
    const hub = new AppEventHub(source);
    hub.start();
    hub.connect(client('org-acme', 'all').c, undefined);
    source.emit('upsert', app('a', '101'));
    source.emit('upsert', app('b', '102'));
    source.emit('delete', app('a', '103'));

    const byId = client('org-acme', 'all');
    hub.connect(byId.c, '101');
    expect(byId.ids()).toEqual(['102', '103']);
    expect(byId.events().at(-1)).toBe('ready');

    const byVersion = client('org-acme', 'all');
    hub.connect(byVersion.c, '100');
    expect(byVersion.ids()).toEqual(['101', '102', '103']);

    for (const since of ['99', 'x', '101~1']) {
      const lost = client('org-acme', 'all');
      hub.connect(lost.c, since);
      expect(lost.events()).toEqual(['reset', 'ready']);
    }
  });

  it('gives a change that arrives out of version order a unique id and resumes across it only by position', () => {
    const source = new Source();
    const hub = new AppEventHub(source);
    hub.start();
    const live = client('org-acme', 'all');
    hub.connect(live.c, undefined);
    source.emit('upsert', app('a', '105'));
    source.emit('delete', app('b', '103'));
    source.emit('upsert', app('c', '106'));
    expect(live.ids()).toEqual(['105', '105~1', '106']);

    const same = client('org-acme', 'all');
    hub.connect(same.c, '105');
    expect(same.ids()).toEqual(['105~1', '106']);
    const elsewhere = client('org-acme', 'all');
    hub.connect(elsewhere.c, '104');
    expect(elsewhere.events()[0]).toBe('reset');
  });

  it('forgets the oldest changes beyond its capacity and resets clients that need them', () => {
    const source = new Source();
    const hub = new AppEventHub(source, { capacity: 2 });
    hub.start();
    for (const rv of ['101', '102', '103']) source.emit('upsert', app(`a${rv}`, rv));
    const old = client('org-acme', 'all');
    hub.connect(old.c, '100');
    expect(old.events()[0]).toBe('reset');
    const recent = client('org-acme', 'all');
    hub.connect(recent.c, '101');
    expect(recent.ids()).toEqual(['102', '103']);
  });

  it('drops a client that stops reading', () => {
    const source = new Source();
    const hub = new AppEventHub(source);
    hub.start();
    const slow = client('org-acme', 'all', false);
    hub.connect(slow.c, undefined);
    source.emit('upsert', app('a', '101'));
    expect(slow.closed).toBe(true);
    expect(hub.clients).toBe(0);
  });
});
