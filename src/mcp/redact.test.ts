import { describe, expect, it } from 'vitest';
import { redactCredentials, redactText } from './redact.ts';

describe('redactCredentials', () => {
  it('masks passwords in URLs and API keys, anywhere in a value', () => {
    const value = {
      source: { git: { repoURL: 'https://bot:t0ken@git.example/a.git' } },
      conditions: [{ message: 'fetch ssh://me:pw@host/x failed; key svc_AbCdEfGhIjKlMnOpQrSt123 rejected' }],
      n: 3,
      none: null,
    };
    expect(redactCredentials(value)).toEqual({
      source: { git: { repoURL: 'https://bot:***@git.example/a.git' } },
      conditions: [{ message: 'fetch ssh://me:***@host/x failed; key svc_*** rejected' }],
      n: 3,
      none: null,
    });
  });

  it('leaves URLs without a password and short svc_ words alone', () => {
    expect(redactText('https://git.example/a.git git@github.com:o/r.git https://user@h/x svc_abc')).toBe(
      'https://git.example/a.git git@github.com:o/r.git https://user@h/x svc_abc',
    );
  });
});
