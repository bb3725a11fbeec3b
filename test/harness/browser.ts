/**
 * Debian's chromium driven by playwright-core (never `playwright install`): headless, no sandbox (tests run as
 * root), no GPU, no background traffic.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import type { Requirement } from './requirements.ts';

export const CHROMIUM = process.env['SVC_CHROMIUM'] ?? '/usr/bin/chromium';

/** The browser for UI tests and benchmarks (installed by scripts/ci-setup.sh). */
export function chromiumRequirement(): Requirement {
  return {
    what: 'chromium',
    missing: existsSync(CHROMIUM) ? undefined : `${CHROMIUM} not found (apt-get install chromium; npm test does it)`,
  };
}

/** Launches chromium headless. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
