import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { onTestFinished } from 'vitest';
import type { Browser, Page } from 'playwright-core';

/** Debian's chromium package; `.ci/run` installs it. Browser downloads are not possible here. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless, and quiet: no sandbox (containers), no GPU, no background traffic to Google. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Launches the system Chromium through playwright-core. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/**
 * True when the browser tests can run. Without Chromium they are skipped
 * locally with a notice, like the PostgreSQL half; with CI=true a missing
 * Chromium fails the run.
 */
export function chromiumAvailable(): boolean {
  if (fs.existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI === 'true') throw new Error(`CI=true requires Chromium at ${CHROMIUM_PATH} for the browser tests: apt-get install -y chromium`);
  console.warn(`notice: ${CHROMIUM_PATH} is missing, so the browser tests are skipped. Install it with: apt-get install -y chromium`);
  return false;
}

/**
 * A new 1280x900 page of `browser`, signed in to the dashboard at `url` as
 * `email`; call it in a test: its profile is closed when the test finishes,
 * so its pages stop using the CPU the next tests need.
 */
export async function signedInPage(browser: Browser, url: string, email: string, password: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  onTestFinished(() => context.close());
  const page = await context.newPage();
  await page.goto(`${url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}
