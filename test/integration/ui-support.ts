/**
 * What the browser tests of the web UI share: a real `svc start` with the built UI and a chromium page on it that
 * records page errors, dialogs and CSP refusals; screenshots into docs/screenshots/; axe checks; sign-up steps.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { ensureWebBuild } from '../../scripts/build-web.ts';
import { launchBrowser, repoRoot, type SvcProcess, startSvc } from '../harness/index.ts';

const SHOTS = join(repoRoot, 'docs', 'screenshots');

export interface UiSession {
  svc: SvcProcess;
  browser: Browser;
  page: Page;
  /** Page errors, dialogs and console errors (CSP refusals, TypeErrors) seen so far. */
  problems: string[];
  /** Saves the viewport as docs/screenshots/<name>.png. */
  shot(name: string): Promise<unknown>;
  /** Asserts no axe violation of names, roles, labels, keyboard or ARIA rules on the current page. */
  accessible(): Promise<void>;
  close(): Promise<void>;
}

/** Builds the UI when stale, starts `svc start` reconciling the org `slug` only, and opens a light-theme page. */
export async function openUi(slug: string): Promise<UiSession> {
  mkdirSync(SHOTS, { recursive: true });
  await ensureWebBuild();
  const svc = await startSvc({ kubeconfig: inject('mgmtKubeconfig'), watchNamespace: `org-${slug}` });
  const browser = await launchBrowser();
  // One locale (numbers and dates read the same on every machine, in the tests and in the screenshots).
  const context = await browser.newContext({
    viewport: { width: 1360, height: 860 },
    colorScheme: 'light',
    locale: 'en-US',
  });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy|Refused to|TypeError|ReferenceError/i.test(m.text())) {
      problems.push(m.text());
    }
  });
  return {
    svc,
    browser,
    page,
    problems,
    shot: (name) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false }),
    accessible: async () => {
      const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag21a']).analyze();
      expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    },
    close: async () => {
      if (problems.length > 0) console.error(`browser problems:\n${problems.join('\n')}`);
      await browser.close();
      await svc.stop();
    },
  };
}

/**
 * From the sign-in page: signs up a new user `<slug>@example.test` (name Ada), creates the org `slug` and waits
 * for its empty app list.
 */
export async function signUpWithOrg(page: Page, slug: string): Promise<void> {
  await page.getByRole('link', { name: 'Sign up' }).click();
  await page.getByLabel('Name').fill('Ada');
  await page.getByLabel('Email').fill(`${slug}@example.test`);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('heading', { name: 'Create an organization' }).waitFor();
  await page.getByLabel('Name').fill('Acme');
  await page.getByLabel('Slug').fill(slug);
  await page.getByRole('button', { name: 'Create organization' }).click();
  await page.getByText('No apps yet').waitFor();
}

/** What the API answers `method path body`, asked from the page (with its session cookie). */
export function apiCall<T = Record<string, unknown>>(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  return page.evaluate(
    async ([m, p, b]) => {
      const res = await fetch(p, {
        method: m,
        headers: b === undefined ? {} : { 'content-type': 'application/json' },
        body: b === undefined ? undefined : JSON.stringify(b),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    [method, path, body] as [string, string, unknown],
  );
}

/** The `{"error"}` the API answers `method path body` with, asked from the page (with its session cookie). */
export async function serverError(page: Page, method: string, path: string, body?: unknown): Promise<string> {
  return String((await apiCall<{ error?: unknown }>(page, method, path, body)).body.error);
}
