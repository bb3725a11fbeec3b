import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configPath, normalizeServer, readConfig, resolveTarget, writeConfig } from './contexts.ts';
import { EXIT, exitCodeOfStatus } from './errors.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('client contexts', () => {
  it('lives under XDG_CONFIG_HOME or ~/.config', () => {
    expect(configPath({ HOME: '/home/ada' })).toBe('/home/ada/.config/svc/config.yaml');
    expect(configPath({ HOME: '/home/ada', XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/svc/config.yaml');
  });

  it('writes the file 0600 in a 0700 directory and reads it back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ctx-'));
    dirs.push(dir);
    const path = join(dir, 'svc', 'config.yaml');
    const config = { 'current-context': 'a', contexts: { a: { server: 'https://svc.example', 'api-key': 'svc_x' } } };
    writeConfig(path, config);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'svc')).mode & 0o777).toBe(0o700);
    expect(readConfig(path)).toEqual(config);
    expect(readFileSync(path, 'utf8')).toContain('current-context: a');
    expect(readConfig(join(dir, 'absent.yaml'))).toEqual({ contexts: {} });
    writeFileSync(path, 'contexts: [oops');
    expect(() => readConfig(path)).toThrow(/not valid YAML/);
  });

  it('takes --server over SVC_SERVER over the context, and SVC_API_KEY over the context key', () => {
    const config = {
      'current-context': 'a',
      contexts: { a: { server: 'https://a.example/', 'api-key': 'svc_a' }, b: { server: 'https://b.example' } },
    };
    expect(resolveTarget(config, {}, {})).toEqual({ server: 'https://a.example', apiKey: 'svc_a', context: 'a' });
    expect(resolveTarget(config, { context: 'b' }, {})).toEqual({
      server: 'https://b.example',
      apiKey: undefined,
      context: 'b',
    });
    expect(resolveTarget(config, {}, { SVC_SERVER: 'http://ci:3000', SVC_API_KEY: 'svc_ci' })).toMatchObject({
      server: 'http://ci:3000',
      apiKey: 'svc_ci',
    });
    expect(resolveTarget(config, { server: 'http://flag' }, { SVC_SERVER: 'http://env' }).server).toBe('http://flag');
    expect(() => resolveTarget(config, { context: 'nope' }, {})).toThrow(/no context named "nope"/);
    expect(() => resolveTarget({ contexts: {} }, {}, {})).toThrow(expect.objectContaining({ exitCode: EXIT.auth }));
    expect(() => normalizeServer('ftp://x')).toThrow(/http/);
  });

  it('maps HTTP statuses to the documented exit codes', () => {
    expect([401, 403, 404, 400, 413, 415, 409, 500, 502, 503].map(exitCodeOfStatus)).toEqual([
      3, 3, 4, 2, 2, 2, 1, 1, 1, 1,
    ]);
  });
});
