import { describe, expect, it } from 'vitest';
import { parseChallenge } from './challenge.ts';

describe('parseChallenge', () => {
  it('reads Bearer and Basic challenges with quoted and bare parameters', () => {
    expect(
      parseChallenge(
        'Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull"',
      ),
    ).toEqual({
      scheme: 'bearer',
      params: { realm: 'https://auth.example/token', service: 'registry.example', scope: 'repository:a/b:pull' },
    });
    expect(parseChallenge('Basic realm="Registry Realm"')).toEqual({
      scheme: 'basic',
      params: { realm: 'Registry Realm' },
    });
    expect(parseChallenge('bearer realm=https://a/t, service=x')?.params).toEqual({
      realm: 'https://a/t',
      service: 'x',
    });
    expect(parseChallenge('Bearer realm="a\\"b"')?.params['realm']).toBe('a"b');
  });

  it('answers undefined for other schemes and empty headers', () => {
    expect(parseChallenge('Negotiate abc')).toBeUndefined();
    expect(parseChallenge('')).toBeUndefined();
    expect(parseChallenge(null)).toBeUndefined();
  });
});
