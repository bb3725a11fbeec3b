import { describe, expect, it } from 'vitest';
import { safeHref } from './safe-href.ts';

describe('safeHref', () => {
  it('keeps http(s) URLs and refuses every other scheme, so cluster text never becomes a script link', () => {
    expect(safeHref('https://git.example/team/app.git')).toBe('https://git.example/team/app.git');
    expect(safeHref('http://127.0.0.1:8080/x')).toBe('http://127.0.0.1:8080/x');
    for (const bad of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'data:text/html,<script>',
      'vbscript:x',
      'ssh://git@x/y',
      'git@x:y',
      '/relative',
      '',
      undefined,
      null,
    ]) {
      expect(safeHref(bad)).toBeUndefined();
    }
  });

  it('encodes markup inside an accepted URL', () => {
    expect(safeHref('https://x.test/<img/src=x/onerror=alert(1)>')).toBe(
      'https://x.test/%3Cimg/src=x/onerror=alert(1)%3E',
    );
  });
});
