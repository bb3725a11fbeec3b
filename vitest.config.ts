import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (tests beside the code, no external processes) and `integration` (tests under test/ that run
 * against the real control plane and peers started by the harness's global setup, and whose secrets and captures the
 * global teardown scans for leaks, test/harness/leak-registry.ts).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          // test/harness/*.test.ts: the harness's own pure parts (the leak scanner), no external processes.
          include: ['src/**/*.test.ts', 'scripts/**/*.test.ts', 'web/src/**/*.test.ts', 'test/harness/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/harness/**'],
          environment: 'node',
          globalSetup: ['test/harness/global-setup.ts'],
          setupFiles: ['test/harness/leak-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
