import { describe, expect, it } from 'vitest';
import { imageName, isDigest, isRegistryHost, isRepositoryPath, isTag, splitRepository } from './image-ref.ts';

describe('image references', () => {
  it('splits repositories as container runtimes do', () => {
    expect(splitRepository('nginx')).toEqual({ host: 'registry-1.docker.io', path: 'library/nginx' });
    expect(splitRepository('team/web')).toEqual({ host: 'registry-1.docker.io', path: 'team/web' });
    expect(splitRepository('docker.io/nginx')).toEqual({ host: 'registry-1.docker.io', path: 'library/nginx' });
    expect(splitRepository('registry.example.com:5000/team/web')).toEqual({
      host: 'registry.example.com:5000',
      path: 'team/web',
    });
    expect(splitRepository('localhost/web')).toEqual({ host: 'localhost', path: 'web' });
    expect(splitRepository('127.0.0.1:5000/a/b')).toEqual({ host: '127.0.0.1:5000', path: 'a/b' });
    for (const bad of ['Team/web', 'https://r.example/web', 'r.example/web:1', 'r.example/../etc', 'r.example/', '']) {
      expect(splitRepository(bad), bad).toBeUndefined();
    }
  });

  it('tells hosts, paths, tags and digests apart', () => {
    expect(['r.example', 'r.example:5000', '10.0.0.5:5000', '[::1]:5000'].every(isRegistryHost)).toBe(true);
    expect(['http://r', 'r/x', 'r:0', 'r:70000', 'a b', ''].some(isRegistryHost)).toBe(false);
    expect(['a', 'a/b-c/d_e', 'a__b/c.d'].every(isRepositoryPath)).toBe(true);
    expect(['A', 'a//b', '-a', 'a/', '../a'].some(isRepositoryPath)).toBe(false);
    expect(['1', 'v1.2.3-rc_1', 'latest'].every(isTag)).toBe(true);
    expect(['.1', '-x', 'a b', 'x'.repeat(129), 'sha256:abc'].some(isTag)).toBe(false);
    expect(isDigest(`sha256:${'a'.repeat(64)}`)).toBe(true);
    expect(isDigest('sha256:abc')).toBe(false);
  });

  it('names the pulled image: the repository as written, or under the registry host with a registryRef', () => {
    expect(imageName({ repository: 'nginx' }, undefined)).toBe('nginx');
    expect(imageName({ repository: 'team/web' }, '127.0.0.1:5000')).toBe('127.0.0.1:5000/team/web');
  });
});
