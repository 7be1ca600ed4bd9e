// The pages a person opens: REST docs and the live batch page (driven in
// headless Chromium: start a batch, watch its bar move, pause, see PAUSED;
// call outcomes, window state, auto-pause reason, retry failed, the runs
// drill-down with its attempts).
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, flows } from './support/flows.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const CHROMIUM = '/usr/bin/chromium';

async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Opens the dashboard and connects with the key. */
async function connectDashboard(page: Page, server: TestServer, apiKey: string, organizationName: string) {
  await page.goto(`${server.url}/dashboard`);
  await page.fill('#api-key', apiKey);
  await page.click('#key-form button[type=submit]');
  await page.waitForSelector(`#status:has-text("Connected to ${organizationName}")`);
}

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
    const { apiKey } = await server.createOrganization('Dashboard org');
    const api = flows(server, apiKey);
    const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(12));

    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await connectDashboard(page, server, apiKey, 'Dashboard org');
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

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('/dashboard campaign view in Chromium', () => {
  // Every call busy on one instance, every call failed on the other.
  let busyServer: TestServer;
  let failingServer: TestServer;
  beforeAll(async () => {
    [busyServer, failingServer] = await Promise.all([
      startTestServer({ engine: { callMs: 20, outcomes: { busy: 1 } } }),
      startTestServer({ engine: { callMs: 20, outcomes: { failed: 1 } } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([busyServer?.close(), failingServer?.close()]);
  });

  it('shows the outcomes and the window state, retries the failed runs, and lists a run\'s attempts', { timeout: 120_000 }, async () => {
    const server = busyServer;
    const { apiKey } = await server.createOrganization('Busy org');
    const api = flows(server, apiKey);
    const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
    const busyBatch = await api.batch(workflowId, await api.prospects(3), { name: '<b>All busy</b>' });
    // A window on another weekday only: closed now, so nothing is dialled.
    const weekdays = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
    const otherDay = weekdays[(new Date().getUTCDay() + 2) % 7]!;
    const waitingBatch = await api.batch(workflowId, await api.prospects(2, (index) => ({ phone: `+1415555${String(index).padStart(4, '0')}` })), {
      name: 'Waiting for its window',
      callingWindow: { days: [otherDay], start: '09:00', end: '10:00', timezone: 'UTC' },
    });

    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await connectDashboard(page, server, apiKey, 'Busy org');
      const row = page.locator(`tr[data-batch-id="${busyBatch}"]`);

      // Each run: one attempt, busy, not retried (max_attempts 1): the batch fails.
      await row.locator('.status', { hasText: /^FAILED$/ }).waitFor({ timeout: 30_000 });
      await row.locator('.attempts', { hasText: /^3 attempts$/ }).waitFor();
      expect(await row.locator('.outcomes li').allTextContents()).toEqual(['0 answered', '0 no answer', '3 busy', '0 voicemail', '0 failed']);
      expect(await row.locator('.paused-reason').textContent()).toBe('');
      // Names are text, never markup.
      expect(await row.locator('.name button').textContent()).toBe('<b>All busy</b>');
      expect(await row.locator('.name b').count()).toBe(0);

      const waiting = page.locator(`tr[data-batch-id="${waitingBatch}"]`);
      const label = otherDay[0]!.toUpperCase() + otherDay.slice(1);
      await waiting.locator('.window-state', { hasText: `waiting for ${label} 09:00 UTC` }).waitFor();
      expect(await waiting.locator('.attempts').textContent()).toBe('0 attempts');
      expect(await waiting.locator('button.retry').isEnabled()).toBe(false);

      // Retry failed dials each run once more; busy again, so 6 attempts and the batch failed again.
      expect(await row.locator('button.retry').isEnabled()).toBe(true);
      await row.locator('button.retry').click();
      await row.locator('.attempts', { hasText: /^6 attempts$/ }).waitFor({ timeout: 30_000 });
      await row.locator('.status', { hasText: /^FAILED$/ }).waitFor({ timeout: 30_000 });
      expect(await row.locator('.outcomes .busy .count').textContent()).toBe('6');
      const runs = await server.db.prisma.run.findMany({ where: { batchId: busyBatch } });
      expect(runs.map((run) => [run.status, run.attempts])).toEqual(Array.from({ length: 3 }, () => ['FAILED', 2]));

      // The drill-down: each run with both of its attempts, oldest first.
      await row.locator('.name button').click();
      const detail = page.locator(`tr.runs-row[data-runs-of="${busyBatch}"]`);
      await detail.locator('.runs-summary', { hasText: /^3 of 3 runs/ }).waitFor();
      expect(await detail.locator('.run').count()).toBe(3);
      expect(await detail.locator('button.more').isHidden()).toBe(true);
      const prospect = await server.db.prisma.prospect.findUniqueOrThrow({ where: { id: runs[0]!.prospectId } });
      const run = detail.locator(`.run[data-run-id="${runs[0]!.id}"]`);
      expect(await run.locator('.phone').textContent()).toBe(prospect.phone);
      expect(await run.locator('.status').textContent()).toBe('FAILED');
      expect(await run.locator('.note').textContent()).toBe('2 attempts · last busy · ' + runs[0]!.error);
      const attempts = run.locator('.call-attempts li');
      expect(await attempts.count()).toBe(2);
      expect(await attempts.nth(0).locator('.number').textContent()).toBe('#1');
      expect(await attempts.nth(1).locator('.number').textContent()).toBe('#2');
      for (const index of [0, 1]) expect(await attempts.nth(index).locator('.outcome').textContent()).toMatch(new RegExp(`^busy · .* · 0 s · to \\${prospect.phone}$`));
      await page.screenshot({ path: '/tmp/dashboard.png', fullPage: true });

      // Clicking the name again closes it.
      await row.locator('.name button').click();
      await detail.waitFor({ state: 'detached' });
    } finally {
      await browser.close();
    }
  });

  it('shows why the circuit breaker paused a batch, retries its failed runs, and pages its runs', { timeout: 120_000 }, async () => {
    const server = failingServer;
    const { apiKey } = await server.createOrganization('Failing org');
    const api = flows(server, apiKey);
    const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(60), {
      name: 'Failing calls',
      autoPause: { failureRate: 0.5, window: 10 },
    });

    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await connectDashboard(page, server, apiKey, 'Failing org');
      const row = page.locator(`tr[data-batch-id="${batchId}"]`);
      await row.locator('.status', { hasText: /^PAUSED$/ }).waitFor({ timeout: 30_000 });
      // Calls in flight when it paused still end: wait for them, then the page shows the stored counts.
      const stored = await eventually(async () => {
        const batch = await server.db.prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
        return batch.inProgressCount === 0 ? batch : undefined;
      });
      const failedAttempts = await server.db.prisma.runAttempt.count({ where: { batchId, outcome: 'failed' } });
      expect(failedAttempts).toBeGreaterThanOrEqual(10);
      expect(stored.pausedReason).toMatch(/^auto_pause: \d+ of 10 attempts failed$/);
      await row.locator('.paused-reason', { hasText: stored.pausedReason! }).waitFor();
      await row.locator('.attempts', { hasText: new RegExp(`^${failedAttempts} attempts$`) }).waitFor();
      expect(await row.locator('.outcomes .failed .count').textContent()).toBe(String(failedAttempts));
      expect(await row.locator('.outcomes .answered .count').textContent()).toBe('0');
      expect(await row.locator('.counts').textContent()).toContain(`${stored.failedCount} failed`);

      // Retry failed on a paused batch: the failed runs wait with the others for the resume.
      expect(await row.locator('button.retry').isEnabled()).toBe(true);
      await row.locator('button.retry').click();
      await row.locator('.counts', { hasText: /· 0 failed$/ }).waitFor();
      expect(await row.locator('.counts').textContent()).toContain(`· 60 paused ·`);
      expect(await row.locator('button.retry').isDisabled()).toBe(true);
      expect(await server.db.prisma.run.count({ where: { batchId, status: 'PAUSED' } })).toBe(60);

      // The drill-down pages: 50 runs, then the rest; the runs that were called list their failed attempt.
      await row.locator('.name button').click();
      const detail = page.locator(`tr.runs-row[data-runs-of="${batchId}"]`);
      await detail.locator('.runs-summary', { hasText: /^50 of 60 runs/ }).waitFor();
      await detail.locator('button.more').click();
      await detail.locator('.runs-summary', { hasText: /^60 of 60 runs/ }).waitFor();
      expect(await detail.locator('button.more').isHidden()).toBe(true);
      expect(await detail.locator('.run').count()).toBe(60);
      expect(new Set(await detail.locator('.run').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.runId))).size).toBe(60);
      const called = detail.locator('.run', { has: page.locator('.call-attempts li') });
      expect(await called.count()).toBe(await server.db.prisma.run.count({ where: { batchId, attempts: { gt: 0 } } }));
      const attempt = called.first().locator('.call-attempts li').first();
      expect(await attempt.locator('.number').textContent()).toBe('#1');
      expect(await attempt.locator('.outcome').textContent()).toMatch(/^failed · .* · 0 s · to \+1415\d{7} · simulated failure$/);
      await page.screenshot({ path: '/tmp/dashboard-paused.png', fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
