import { describe, expect, it } from 'vitest';
import { escapeHtml, parseHandoff } from './cli-login.ts';

describe('cli-login handoff parameters', () => {
  const good = { port: '43123', state: 'a'.repeat(32), name: 'laptop', role: 'sync', expires_days: '30' };

  it('parses a good link with defaults for role and expiry', () => {
    expect(parseHandoff(good)).toEqual({
      port: 43123,
      state: 'a'.repeat(32),
      name: 'laptop',
      role: 'sync',
      expiresDays: 30,
    });
    expect(parseHandoff({ port: '2000', state: 'b'.repeat(16) })).toMatchObject({
      role: 'admin',
      expiresDays: 90,
      name: 'svc CLI',
    });
  });

  it('refuses privileged ports, short states, control characters and unknown roles', () => {
    expect(() => parseHandoff({ ...good, port: '80' })).toThrow(/port/);
    expect(() => parseHandoff({ ...good, state: 'short' })).toThrow(/state/);
    expect(() => parseHandoff({ ...good, name: 'a\nb' })).toThrow(/name/);
    expect(() => parseHandoff({ ...good, role: 'root' })).toThrow(/role/);
    expect(() => parseHandoff({ ...good, expires_days: '-1' })).toThrow(/expires_days/);
  });

  it('stored XSS (CVE-2026-45738): escapes HTML', () => {
    expect(escapeHtml(`<script>alert("x")</script>&'`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;',
    );
  });
});
