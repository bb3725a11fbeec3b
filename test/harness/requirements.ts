/**
 * The one rule for tests whose tool or peer may be missing (a binary, PostgreSQL): in CI (the `CI` environment
 * variable set, as `.ci/run` and every CI service do) a missing requirement FAILS every test of the group with a
 * message saying what is missing and how to get it; on a developer's machine the group is skipped, loudly (one
 * console.warn per requirement). `npm test` sets every requirement up itself (scripts/test.sh), so a skip can only
 * happen when a developer runs vitest directly without the setup.
 */
import { execFileSync } from 'node:child_process';
import { describe, it } from 'vitest';

/** A requirement of a test group: what it is, and why it is missing (undefined when it is present). */
export interface Requirement {
  what: string;
  missing: string | undefined;
}

/** Whether this run is CI: `CI` set to anything but empty, `0` or `false`. */
export function inCI(env: Record<string, string | undefined> = process.env): boolean {
  const v = env['CI'];
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

const warned = new Set<string>();

/**
 * A `describe` for a group that needs `requirements`: the plain one when all are present; otherwise, in CI, one
 * holding a single failing test that says what is missing (the group's own tests are not registered); elsewhere a
 * skipped one (with one warning per missing requirement).
 */
export function describeWith(...requirements: Requirement[]): (name: string, body: () => void) => void {
  const missing = requirements.filter((r) => r.missing !== undefined);
  if (missing.length === 0) return (name, body) => describe(name, body);
  const message = missing.map((r) => `${r.what} is missing: ${r.missing}`).join('; ');
  if (inCI()) {
    // One failing test in place of the group, so the run's count says "failed", not "skipped".
    return (name) =>
      describe(name, () => {
        it(`has ${missing.map((r) => r.what).join(' and ')}`, () => {
          throw new Error(`${message} (CI is set, so this fails instead of skipping)`);
        });
      });
  }
  if (!warned.has(message)) {
    warned.add(message);
    console.warn(`SKIPPED (not in CI): ${message}`);
  }
  return (name, body) => describe.skip(name, body);
}

/** PostgreSQL for the store and API tests: the server `SVC_TEST_POSTGRES_URL` names. */
export function postgresRequirement(env: Record<string, string | undefined> = process.env): Requirement {
  return {
    what: 'PostgreSQL',
    missing: env['SVC_TEST_POSTGRES_URL']
      ? undefined
      : 'SVC_TEST_POSTGRES_URL is not set (`npm test` starts it; alone: eval "$(bash scripts/start-postgres.sh)")',
  };
}

/** `command` runs (`args`, e.g. --version), else what to install: a tool a test drives. */
function commandRequirement(what: string, command: string, args: string[], missing: string): Requirement {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return { what, missing: undefined };
  } catch {
    return { what, missing };
  }
}

/** tmux, for tests that run a command in a terminal (scripts/ci-setup.sh installs it). */
export function tmuxRequirement(): Requirement {
  return commandRequirement(
    'tmux',
    'tmux',
    ['-V'],
    'not on PATH (apt-get install tmux; scripts/ci-setup.sh installs it)',
  );
}

/** util-linux `script`, for tests that run a command on a pseudo-terminal (Debian's essential bsdutils has it). */
export function scriptRequirement(): Requirement {
  return commandRequirement('script (util-linux)', 'script', ['--version'], 'not on PATH (apt-get install bsdutils)');
}
