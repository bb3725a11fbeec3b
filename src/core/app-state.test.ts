import { describe, expect, it } from 'vitest';
import { type AppResource, type AppStatus, OPERATION_KINDS, type Operation, SOURCE_TYPES } from './app-schema.ts';
import {
  APPROVAL_MESSAGE,
  admitOperation,
  BLOCKED_MESSAGE,
  DEPLOYABLE_SOURCE_TYPES,
  FROZEN_MESSAGE,
  isPending,
  isStalled,
  isWaitTerminal,
  type OperationIO,
  operationLifecycle,
  operationPatch,
  repoURLProblem,
  requestedOperationId,
  sourceTypeProblem,
  writeOperation,
} from './app-state.ts';
import { ConflictError, NotFoundError } from './errors.ts';

const T0 = '2026-11-21T05:00:00.000Z';
const T1 = '2026-11-21T06:00:00.000Z';
const T2 = '2026-11-21T07:00:00.000Z';
const op: Operation = { kind: 'Sync', initiatedAt: T1, id: 'op-1', triggeredBy: 'u1' };
const record = (o: Operation, phase: 'Running' | 'Succeeded' | 'Failed' | 'Held', extra = {}) => ({
  kind: o.kind,
  initiatedAt: o.initiatedAt,
  ...(o.id ? { id: o.id } : {}),
  phase,
  ...extra,
});

function app(operation: Operation | undefined, status?: AppStatus, generation = 1): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'web', namespace: 'org-x', generation, resourceVersion: '10' },
    spec: {
      source: { type: 'Git', git: { repoURL: 'https://git.example/r.git' } },
      destination: { namespace: 'd' },
      ...(operation ? { operation } : {}),
    },
    ...(status ? { status } : {}),
  };
}

/** Every lifecycle state an App can be in, with the phase it must read as. */
const STATES: Record<string, { app: AppResource; phase: string; pending: boolean; approvable: boolean }> = {
  'never operated': { app: app(undefined), phase: 'idle', pending: false, approvable: false },
  'requested, nothing recorded': { app: app(op), phase: 'requested', pending: true, approvable: false },
  'requested after a finished one': {
    app: app(op, { operationState: record({ ...op, id: 'old', initiatedAt: T0 }, 'Succeeded') }),
    phase: 'requested',
    pending: true,
    approvable: false,
  },
  running: {
    app: app(op, { operationState: record(op, 'Running') }),
    phase: 'running',
    pending: true,
    approvable: false,
  },
  'held by a freeze': {
    app: app(op, { operationState: record(op, 'Held', { message: FROZEN_MESSAGE }) }),
    phase: 'held',
    pending: true,
    approvable: false,
  },
  'held by its dependencies': {
    app: app(op, { operationState: record(op, 'Held', { message: BLOCKED_MESSAGE }) }),
    phase: 'held',
    pending: true,
    approvable: false,
  },
  'held for approval': {
    app: app(op, { operationState: record(op, 'Held', { message: APPROVAL_MESSAGE, revision: 'c1' }) }),
    phase: 'held',
    pending: true,
    approvable: true,
  },
  'staged for approval by an automated App': {
    app: app(op, {
      operationState: { kind: 'Sync', initiatedAt: T2, phase: 'Held', revision: 'c2', message: APPROVAL_MESSAGE },
    }),
    phase: 'held',
    pending: true,
    approvable: true,
  },
  succeeded: {
    app: app(op, { operationState: record(op, 'Succeeded') }),
    phase: 'finished',
    pending: false,
    approvable: false,
  },
  failed: {
    app: app(op, { operationState: record(op, 'Failed') }),
    phase: 'finished',
    pending: false,
    approvable: false,
  },
  'a Running record whose request is gone': {
    app: app(undefined, { operationState: record(op, 'Running') }),
    phase: 'idle',
    pending: false,
    approvable: false,
  },
  'a frozen record whose request is gone': {
    app: app(undefined, { operationState: record(op, 'Held', { message: FROZEN_MESSAGE }) }),
    phase: 'idle',
    pending: false,
    approvable: false,
  },
  'a blocked record whose request is gone': {
    app: app(undefined, { operationState: record(op, 'Held', { message: BLOCKED_MESSAGE }) }),
    phase: 'idle',
    pending: false,
    approvable: false,
  },
};

describe('operationLifecycle', () => {
  it.each(Object.entries(STATES))('%s', (_name, s) => {
    const life = operationLifecycle(s.app);
    expect(life.phase).toBe(s.phase);
    expect(isPending(life)).toBe(s.pending);
  });

  it('tells a freeze hold from an approval hold and keeps the staged revision', () => {
    expect(operationLifecycle(STATES['held by a freeze']!.app)).toMatchObject({ reason: 'freeze', operation: op });
    expect(operationLifecycle(STATES['held by its dependencies']!.app)).toMatchObject({
      reason: 'dependencies',
      operation: op,
    });
    expect(() => admitOperation(STATES['held by its dependencies']!.app, 'Sync')).toThrow(
      /held until its dependencies are ready/,
    );
    expect(operationLifecycle(STATES['held for approval']!.app)).toMatchObject({ reason: 'approval', revision: 'c1' });
    expect(operationLifecycle(STATES['staged for approval by an automated App']!.app)).toMatchObject({
      reason: 'approval',
      operation: undefined,
      revision: 'c2',
    });
  });

  it('a request newer than an automated staging record is requested; an older one was superseded by it', () => {
    const staged = { kind: 'Sync' as const, initiatedAt: T1, phase: 'Held' as const, message: APPROVAL_MESSAGE };
    expect(operationLifecycle(app({ ...op, kind: 'Approve', initiatedAt: T2 }, { operationState: staged })).phase).toBe(
      'requested',
    );
    expect(operationLifecycle(app({ ...op, initiatedAt: T0 }, { operationState: staged })).phase).toBe('held');
  });
});

describe('admitOperation: every state × every operation kind', () => {
  const cases = Object.entries(STATES).flatMap(([name, s]) => OPERATION_KINDS.map((kind) => [name, kind, s] as const));
  it.each(cases)('%s, %s', (_name, kind, s) => {
    const accepted = kind === 'Approve' ? s.approvable : !s.pending;
    if (accepted) expect(() => admitOperation(s.app, kind)).not.toThrow();
    else expect(() => admitOperation(s.app, kind)).toThrow(ConflictError);
  });

  it('says why: pending (and how), or nothing to approve', () => {
    expect(() => admitOperation(STATES['running']!.app, 'Sync')).toThrow(
      'app web already has a pending Sync operation (op-1), running',
    );
    expect(() => admitOperation(STATES['held for approval']!.app, 'Rollback')).toThrow(/held for approval/);
    expect(() => admitOperation(STATES['staged for approval by an automated App']!.app, 'Sync')).toThrow(
      'app web has a sync held for approval (revision c2); approve it first',
    );
    expect(() => admitOperation(STATES['succeeded']!.app, 'Approve')).toThrow('app web has no held sync to approve');
  });
});

describe('operationPatch', () => {
  const stamp = { id: 'uuid-1', now: new Date(T2) };

  it('stamps id, initiatedAt and triggeredBy, clears a previous revision, and adds further spec fields', () => {
    const done = app({ ...op, revision: 'c0' }, { operationState: record({ ...op, revision: 'c0' }, 'Succeeded') });
    const out = operationPatch(
      done,
      { kind: 'Sync', triggeredBy: 'u2', specPatch: { source: { image: { tag: '2' } } } },
      stamp,
    );
    expect(out).toEqual({
      id: 'uuid-1',
      patch: {
        spec: {
          source: { image: { tag: '2' } },
          operation: {
            kind: 'Sync',
            initiatedAt: T2,
            id: 'uuid-1',
            triggeredBy: 'u2',
            revision: null,
            windowOverride: null,
          },
        },
      },
    });
  });

  it('an Approve carries the held revision; a Rollback its own', () => {
    const held = STATES['held for approval']!.app;
    expect(operationPatch(held, { kind: 'Approve', triggeredBy: 'u' }, stamp).patch.spec['operation']).toMatchObject({
      kind: 'Approve',
      revision: 'c1',
    });
    expect(
      operationPatch(STATES['succeeded']!.app, { kind: 'Rollback', revision: 'c9', triggeredBy: 'u' }, stamp).patch
        .spec['operation'],
    ).toMatchObject({ revision: 'c9' });
  });

  it('is never stamped earlier than the record it follows (clock skew between server and operator)', () => {
    const staged = STATES['staged for approval by an automated App']!.app;
    const early = operationPatch(staged, { kind: 'Approve', triggeredBy: 'u' }, { id: 'x', now: new Date(T0) });
    const written = early.patch.spec['operation'] as Operation;
    expect(Date.parse(written.initiatedAt)).toBe(Date.parse(T2) + 1);
    expect(operationLifecycle(app(written, staged.status)).phase).toBe('requested');
  });

  it('refuses while another operation is pending', () => {
    expect(() => operationPatch(STATES['running']!.app, { kind: 'Sync', triggeredBy: 'u' }, stamp)).toThrow(
      ConflictError,
    );
  });
});

describe('writeOperation (resourceVersion retry)', () => {
  /** An in-memory App that answers stale once per entry of `moves`, applying that change first. */
  function store(initial: AppResource, moves: ((a: AppResource) => AppResource)[]) {
    let current = initial;
    let version = 10;
    const io: OperationIO & { patches: number } = {
      patches: 0,
      async read() {
        return current;
      },
      async patch(patch, rv) {
        io.patches++;
        const move = moves.shift();
        if (move) {
          const moved = move(current);
          current = { ...moved, metadata: { ...moved.metadata, resourceVersion: String(++version) } };
        }
        if (rv !== current.metadata.resourceVersion) return false;
        current = { ...current, spec: { ...current.spec, ...(patch.spec as object) } };
        return true;
      },
    };
    return { io, get: () => current };
  }
  const stamps = () => {
    let n = 0;
    return () => ({ id: `id-${++n}`, now: new Date(T2) });
  };

  it('writes at once when nothing moved', async () => {
    const s = store(app(undefined), []);
    expect(await writeOperation(s.io, s.get(), { kind: 'Sync', triggeredBy: 'u' }, { stamp: stamps() })).toBe('id-1');
    expect(s.get().spec.operation).toMatchObject({ id: 'id-1', kind: 'Sync' });
  });

  it('retries past a change the operator makes on its own (health)', async () => {
    const s = store(app(undefined), [(a) => ({ ...a, status: { healthStatus: 'Progressing' } })]);
    const id = await writeOperation(s.io, s.get(), { kind: 'Sync', triggeredBy: 'u' }, { stamp: stamps() });
    expect(id).toBe('id-2');
    expect(s.io.patches).toBe(2);
  });

  it('answers 409 when another operation was written meanwhile, and keeps it', async () => {
    const other = { ...op, id: 'theirs' };
    const s = store(app(undefined), [(a) => ({ ...a, spec: { ...a.spec, operation: other } })]);
    const write = writeOperation(s.io, s.get(), { kind: 'Restart', triggeredBy: 'u' }, { stamp: stamps() });
    await expect(write).rejects.toThrow(/already has a pending Sync operation \(theirs\)/);
    expect(s.get().spec.operation?.id).toBe('theirs');
  });

  it('answers 409 when the spec changed meanwhile, unless the caller says its checks still hold', async () => {
    const edit = (a: AppResource) => ({ ...a, metadata: { ...a.metadata, generation: 2 } });
    const s = store(app(undefined), [edit]);
    await expect(writeOperation(s.io, s.get(), { kind: 'Sync', triggeredBy: 'u' })).rejects.toThrow(/changed/);
    const t = store(app(undefined), [edit]);
    const id = await writeOperation(t.io, t.get(), { kind: 'Sync', triggeredBy: 'u' }, { stillValid: () => true });
    expect(t.get().spec.operation?.id).toBe(id);
  });

  it('gives up after four stale answers, and reports an App deleted meanwhile', async () => {
    const health = (a: AppResource) => ({ ...a, status: { healthStatus: 'Progressing' as const } });
    const s = store(app(undefined), [health, health, health, health]);
    await expect(writeOperation(s.io, s.get(), { kind: 'Sync', triggeredBy: 'u' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(s.io.patches).toBe(4);
    const gone: OperationIO = { read: async () => undefined, patch: async () => false };
    await expect(writeOperation(gone, app(undefined), { kind: 'Sync', triggeredBy: 'u' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe('requestedOperationId', () => {
  it('names only a request the operator has not picked up', () => {
    expect(requestedOperationId(STATES['requested, nothing recorded']!.app)).toBe('op-1');
    expect(requestedOperationId(STATES['running']!.app)).toBeNull();
    expect(requestedOperationId(STATES['never operated']!.app)).toBeNull();
  });
});

describe('isStalled', () => {
  const stalled = { conditions: [{ type: 'Stalled' as const, status: 'True' as const }], observedGeneration: 3 };
  it('holds for the generation it was observed at only', () => {
    expect(isStalled(app(undefined, stalled, 3))).toBe(true);
    expect(isStalled(app(undefined, stalled, 4))).toBe(false);
    expect(isStalled(app(undefined, { ...stalled, conditions: [{ type: 'Stalled', status: 'False' }] }, 3))).toBe(
      false,
    );
    expect(isStalled(app(undefined))).toBe(false);
  });
});

describe('isWaitTerminal (contract §4.2 rule 3)', () => {
  const s = (status: AppStatus, operation?: Operation) => app(operation, status);
  it.each([
    ['no status yet', app(undefined), false],
    ['Synced and Healthy', s({ syncStatus: 'Synced', healthStatus: 'Healthy' }), true],
    ['Synced and Progressing', s({ syncStatus: 'Synced', healthStatus: 'Progressing' }), false],
    ['Degraded', s({ syncStatus: 'OutOfSync', healthStatus: 'Degraded' }), true],
    ['health Unknown', s({ syncStatus: 'OutOfSync', healthStatus: 'Unknown' }), true],
    ['sync Unknown', s({ syncStatus: 'Unknown', healthStatus: 'Missing' }), true],
    ['Syncing', s({ syncStatus: 'Syncing', healthStatus: 'Degraded' }), false],
    ['requested, even if Healthy', s({ syncStatus: 'Synced', healthStatus: 'Healthy' }, op), false],
    [
      'running, even if Healthy',
      s({ syncStatus: 'Synced', healthStatus: 'Healthy', operationState: record(op, 'Running') }, op),
      false,
    ],
    [
      'last operation Failed',
      s({ syncStatus: 'OutOfSync', healthStatus: 'Progressing', operationState: record(op, 'Failed') }, op),
      true,
    ],
    [
      'held',
      s(
        {
          syncStatus: 'OutOfSync',
          healthStatus: 'Progressing',
          operationState: record(op, 'Held', { message: FROZEN_MESSAGE }),
        },
        op,
      ),
      true,
    ],
    [
      'Stalled',
      s({
        syncStatus: 'OutOfSync',
        healthStatus: 'Progressing',
        observedGeneration: 1,
        conditions: [{ type: 'Stalled', status: 'True' }],
      }),
      true,
    ],
  ])('%s → %s', (_name, a, terminal) => {
    expect(isWaitTerminal(a)).toBe(terminal);
  });
});

describe('source rules', () => {
  it('deploys exactly the types listed; names the others clearly', () => {
    expect(DEPLOYABLE_SOURCE_TYPES).toEqual(['Git', 'Image', 'HelmChart', 'Catalog']);
    expect(sourceTypeProblem('Git')).toBeUndefined();
    expect(sourceTypeProblem('Image')).toBeUndefined();
    expect(sourceTypeProblem('HelmChart')).toBeUndefined();
    expect(sourceTypeProblem('Catalog')).toBeUndefined();
    expect(sourceTypeProblem('Svn')).toBe(`source.type must be one of ${SOURCE_TYPES.join(', ')}`);
    expect(sourceTypeProblem(undefined)).toMatch(/must be one of/);
  });

  it.each([
    'https://git.example.com/org/app.git',
    'http://127.0.0.1:8080/app.git',
    'ssh://git@git.example.com/org/app.git',
    'git://git.example.com/app.git',
    'git@github.com:org/app.git',
  ])('accepts the repository URL %s', (url) => {
    expect(repoURLProblem(url)).toBeUndefined();
  });

  it.each(['file:///etc', '/srv/app.git', 'app', 'https:///x', 'https://-oProxy/x', '-u@host:x', 'ext::sh -c x', ''])(
    'refuses the repository URL %j',
    (url) => {
      expect(repoURLProblem(url)).toMatch(/repoURL/);
    },
  );
});
