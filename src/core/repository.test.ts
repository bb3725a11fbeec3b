import { describe, expect, it } from 'vitest';
import { matchRepository, type RepositoryEntry, urlCovers } from './repository.ts';

describe('which repository covers a source URL', () => {
  it('covers its URL and what lies below it, never a sibling that only shares a prefix', () => {
    expect(urlCovers('https://git.example.com/team', 'https://git.example.com/team/web.git')).toBe(true);
    expect(urlCovers('https://git.example.com/team/', 'https://git.example.com/team/web.git')).toBe(true);
    expect(urlCovers('https://git.example.com/team/web', 'https://git.example.com/team/web.git')).toBe(true);
    expect(urlCovers('https://GIT.example.com/team', 'https://git.example.com/team/x')).toBe(true);
    expect(urlCovers('https://git.example.com/team', 'https://git.example.com/teamwork/x.git')).toBe(false);
    expect(urlCovers('https://git.example.com', 'https://git.example.com.evil.io/x')).toBe(false);
    expect(urlCovers('git@git.example.com', 'git@git.example.com:team/web.git')).toBe(true);
    expect(urlCovers('oci://registry.example.com/charts', 'oci://registry.example.com/charts')).toBe(true);
  });

  it('takes the named repository only when it covers the URL, else the longest covering one of the type', () => {
    const repos: RepositoryEntry[] = [
      { name: 'all', type: 'git', url: 'https://git.example.com' },
      { name: 'team', type: 'git', url: 'https://git.example.com/team' },
      { name: 'charts', type: 'helm', url: 'https://git.example.com/team/charts' },
    ];
    const url = 'https://git.example.com/team/charts/web.git';
    expect(matchRepository(repos, 'git', url)?.name).toBe('team');
    expect(matchRepository(repos, 'helm', url)?.name).toBe('charts');
    expect(matchRepository(repos, 'git', url, 'all')?.name).toBe('all');
    expect(matchRepository(repos, 'git', 'https://elsewhere.example.com/x.git', 'all')).toBeUndefined();
    expect(matchRepository(repos, 'git', url, 'charts')).toBeUndefined();
    expect(matchRepository(repos, 'git', 'https://other.example.com/x.git')).toBeUndefined();
  });
});
