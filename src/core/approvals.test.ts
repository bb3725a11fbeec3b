import { describe, expect, it } from 'vitest';
import type { AppResource } from './app-schema.ts';
import { APPROVAL_MESSAGE } from './app-state.ts';
import { APPROVALS_ANNOTATION, approvalsOf, approversText, expiresAt, mayApprove } from './approvals.ts';

const held = { kind: 'Sync' as const, id: 'op-1', phase: 'Held' as const, message: APPROVAL_MESSAGE, revision: 'c1' };

function app(annotation: unknown, state: object | undefined = held): AppResource {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: 'web', annotations: { [APPROVALS_ANNOTATION]: JSON.stringify(annotation) } },
    spec: { source: { type: 'Git' }, destination: { namespace: 'd' } },
    ...(state ? { status: { operationState: state } } : {}),
  } as unknown as AppResource;
}

describe('approvals', () => {
  const bob = { userId: 'u-bob', email: 'Bob@Example.test', role: 'Contributor', teams: ['sre'] };

  it('matches approvers by role, team, user id or email (any caller when the policy names nobody)', () => {
    expect(mayApprove({}, bob)).toBe(true);
    expect(mayApprove({ roles: ['Owner'] }, bob)).toBe(false);
    expect(mayApprove({ roles: ['Contributor'] }, bob)).toBe(true);
    expect(mayApprove({ teams: ['sre'] }, bob)).toBe(true);
    expect(mayApprove({ users: ['bob@example.test'] }, bob)).toBe(true);
    expect(mayApprove({ users: ['u-bob'] }, bob)).toBe(true);
    expect(mayApprove({ users: ['carol@example.test'], teams: ['dba'] }, bob)).toBe(false);
    expect(approversText({ roles: ['Owner'], users: ['a@b.c'] })).toBe('roles Owner; users a@b.c');
  });

  it('counts only the approvals of the sync held now', () => {
    const by = [{ user: 'u-bob', email: 'bob@example.test', at: '2026-01-01T00:00:00Z' }];
    expect(approvalsOf(app({ operation: 'op-1', by }))).toEqual(by);
    expect(approvalsOf(app({ operation: 'op-0', by }))).toEqual([]);
    expect(approvalsOf(app({ operation: 'op-1', by }, { ...held, phase: 'Succeeded' }))).toEqual([]);
    expect(approvalsOf(app('not json{'))).toEqual([]);
  });

  it('expires a held sync its expiry after it was requested', () => {
    const state = { ...held, initiatedAt: '2026-01-01T00:00:00.000Z' };
    expect(expiresAt({ expiry: '1h30m' }, state)).toBe('2026-01-01T01:30:00.000Z');
    expect(expiresAt({}, state)).toBeUndefined();
  });
});
