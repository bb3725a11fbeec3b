/**
 * Setup file of the integration project (runs in each worker before each test file): names the running test file
 * for the leak check's reports (test/harness/leak-registry.ts), and registers the secret every test file shares.
 */
import { relative } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { registerSecret, setLeakContext } from './leak-registry.ts';
import { repoRoot } from './paths.ts';

beforeAll(() => {
  setLeakContext(relative(repoRoot, expect.getState().testPath ?? 'unknown test file'));
  // The password of every test user (api-support's signUp, the CLI, UI and start tests sign up with it).
  registerSecret('test-user password', 'correct horse battery');
});
