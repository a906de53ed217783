// Debian's Chromium driven by playwright-core, for the dashboard's end-to-end tests. `npm test` and
// .ci/run install the `chromium` package when it is missing (scripts/setup-test-system.sh); without
// it these tests fail, never skip.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.SVC_TEST_CHROMIUM || '/usr/bin/chromium';
/** Screenshots land here (kept by CI as artifacts; ignored by git). */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'screenshots');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install -y chromium), as npm test does.`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // As root in a container, without the sandbox; no background traffic to hosts this machine cannot reach.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Uncaught page errors and console errors, CSP violations among them: a test expects none. */
  problems: string[];
}

/** A fresh page at 1280×800 that records what went wrong in it. */
export async function openPage(browser: Browser, options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.setDefaultTimeout(15_000);
  return { page, context, problems };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
