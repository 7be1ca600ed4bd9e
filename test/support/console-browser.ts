// The console in Debian's Chromium (playwright-core, no browser download):
// a tab whose CSP violations are collected, the API key entered, and
// screenshots at the widths the console is laid out for. Used by the console's
// tests of call records (test/console-records.test.ts).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import type { TestServer } from './server.ts';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = '.ci';
const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
export type Width = keyof typeof WIDTHS;
export const hasChromium = existsSync(CHROMIUM) || Boolean(process.env.CI);

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
  });
}

/** The console is served from dist/console/: built here, so a test never runs an old bundle. */
export const buildConsole = () => promisify(execFile)(process.execPath, ['scripts/build-console.js', '--quiet']);

const CSP_VIOLATION = 'CSP violation:';

/** A tab at `width` with the key entered, on the page of `hash`; `violations` collects its CSP violations. */
export async function openConsole(
  browser: Browser,
  server: TestServer,
  apiKey: string,
  {
    organizationName,
    width = 'desktop',
    hash = '',
    violations,
  }: {
    organizationName: string;
    width?: Width;
    hash?: string;
    violations: string[];
  },
): Promise<Page> {
  const page = await browser.newPage({ viewport: WIDTHS[width] });
  await page.addInitScript((mark) => {
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`${mark} ${event.violatedDirective} refused ${event.blockedURI || 'inline'}`),
    );
  }, CSP_VIOLATION);
  page.on('console', (message) => {
    if (message.text().startsWith(CSP_VIOLATION)) violations.push(message.text());
  });
  await page.goto(`${server.url}/dashboard${hash}`);
  await page.fill('#api-key', apiKey);
  await page.click('#key-form button[type=submit]');
  await page.locator('#status', { hasText: `Connected to ${organizationName}` }).waitFor();
  return page;
}

/** The whole page from the top, once its charts have drawn at their size. */
export async function screenshot(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${SCREENSHOTS}/console-${name}.png`, fullPage: true });
}
