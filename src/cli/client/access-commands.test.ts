import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../client/answers.ts';
import { auditUser } from './access-commands.ts';

const entry = (who: Partial<AuditEntry>): AuditEntry => ({
  id: 1,
  created_at: '2026-01-01T00:00:00Z',
  user_id: '',
  action: 'app.sync',
  resource_type: 'app',
  resource_name: 'web',
  details: {},
  ...who,
});

describe('svc audit user column', () => {
  it('names who acted with their email, falls back to the id of a user gone, and says (system) for svc', () => {
    expect(auditUser(entry({ user_id: 'u1', user_name: 'Ada', user_email: 'ada@example.test' }))).toBe(
      'Ada <ada@example.test>',
    );
    expect(auditUser(entry({ user_id: 'u2' }))).toBe('u2');
    expect(auditUser(entry({}))).toBe('(system)');
  });
});
