// The pages a person opens: REST docs and the live batch page (driven in
// headless Chromium: start a batch, watch its bar move, pause, see PAUSED).
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flows } from './support/flows.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const CHROMIUM = '/usr/bin/chromium';

describe('/docs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('renders the OpenAPI document with Swagger UI served from npm, no CDN', async () => {
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain("url: '/openapi.json'");
    expect(html).not.toMatch(/(src|href)="https?:/);
    for (const asset of ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css']) {
      const response = await fetch(`${server.url}${asset}`);
      expect(response.status, asset).toBe(200);
      expect((await response.text()).length).toBeGreaterThan(1000);
    }
    expect((await fetch(`${server.url}/docs/assets/../../package.json`)).status).toBe(404);
  });
});

// CI installs Chromium (.ci/run); elsewhere the browser test needs Debian's `chromium` package.
describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('/dashboard in Chromium', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine: { callMs: 400, concurrency: 1 } });
  });
  afterAll(() => server.close());

  it('shows a batch whose bar moves live, and pauses it', { timeout: 120_000 }, async () => {
    const { chromium } = await import('playwright-core');
    const { apiKey } = await server.createOrganization('Dashboard org');
    const api = flows(server, apiKey);
    const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(12));

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${server.url}/dashboard`);
      await page.fill('#api-key', apiKey);
      await page.click('#key-form button[type=submit]');
      await page.waitForSelector('#status:has-text("Connected to Dashboard org")');
      const row = page.locator(`tr[data-batch-id="${batchId}"]`);
      await row.waitFor();
      const progress = () => row.locator('progress').evaluate((bar) => (bar as HTMLProgressElement).value);
      const first = await progress();
      await page.waitForFunction(
        ([id, before]) => (document.querySelector(`tr[data-batch-id="${id}"] progress`) as HTMLProgressElement).value > before,
        [batchId, first] as const,
        { timeout: 30_000 },
      );
      expect(await progress()).toBeGreaterThan(first);
      await page.screenshot({ path: 'test-results/dashboard-running.png' }).catch(() => {});

      await row.locator('button.pause').click();
      await row.locator('.status:has-text("PAUSED")').waitFor({ timeout: 15_000 });
      expect(await row.locator('button.resume').isEnabled()).toBe(true);
      const stored = await server.db.prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
      expect(stored.status).toBe('PAUSED');
      // The key stays in this tab only.
      expect(await page.evaluate(() => sessionStorage.getItem('gateway.apiKey'))).toBe(apiKey);
      expect(await page.evaluate(() => localStorage.length)).toBe(0);
    } finally {
      await browser.close();
    }
  });
});
