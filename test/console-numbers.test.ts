// The console's Numbers page in Debian's Chromium, against a server whose
// engine calls from two caller ids of one trunk: the one nobody answers is
// rested by the number_health breaker; the page shows each number's health
// and rest, restores and rests them through the mutations of
// POST /phone-numbers/{id}/restore and /rest, and a key without
// telephony:write sees those buttons disabled, naming the scope.
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Dialer } from '../src/engine/dialer.ts';
import { batchIn } from './support/batch-checks.ts';
import { buildConsole, hasChromium, launchChromium, openConsole, screenshot } from './support/console-browser.ts';
import { flows } from './support/flows.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const NOBODY = '+12125550101'; // its calls are never answered
const ANSWERED = '+12125550102';

const dialer: Dialer = {
  dial: async (request) =>
    request.fromNumber === NOBODY
      ? { outcome: 'no_answer', durationSeconds: 0, reason: null }
      : { outcome: 'answered', durationSeconds: 30, reason: null },
};

describe.skipIf(!hasChromium)("the console's numbers page in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let apiKey: string;
  let rest: ReturnType<typeof restClient>;
  const ids: Record<string, string> = {};
  const violations: string[] = [];
  const organizationName = 'Acme Numbers';
  afterEach(() => {
    expect(violations.splice(0)).toEqual([]);
  });

  beforeAll(async () => {
    await buildConsole();
    server = await startTestServer({ engine: { concurrency: 1, dialer } });
    const organization = await server.createOrganization(organizationName);
    apiKey = organization.apiKey;
    rest = restClient(server, organization.organizationId, apiKey);
    await rest('PATCH', '/org/{org}/settings', {
      body: { number_health: { min_attempts: 2, window: 10, min_answer_rate: 0.5, rest_hours: 24 } },
    });
    const trunks = await rest('POST', '/org/{org}/sip-trunks', {
      body: { name: 'Main', address: 'sip.example.com', provider: 'twilio', phone_numbers: [NOBODY, ANSWERED] },
    });
    for (const entry of trunks.body.phone_numbers as { id: string; number: string }[]) ids[entry.number] = entry.id;
    const api = flows(server, apiKey);
    const workflowId = await api.workflow([{ id: 'dial', type: 'call', trunk_id: trunks.body.outbound_trunk.id }]);
    await batchIn(server.db, await api.batch(workflowId, await api.prospects(8)), ['FINISHED']);
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows each number’s health and rest, and restores and rests them', { timeout: 120_000 }, async () => {
    const page = await openConsole(browser, server, apiKey, { organizationName, hash: '#/numbers', violations });
    const nobody = page.locator(`tr[data-number-id="${ids[NOBODY]}"]`);
    const answered = page.locator(`tr[data-number-id="${ids[ANSWERED]}"]`);
    await nobody.waitFor();
    expect(await nobody.locator('.number-state').textContent()).toMatch(/^Resting until .+ \(min_answer_rate\)$/);
    expect(await nobody.locator('.answer-rate').textContent()).toBe('0%');
    expect(await answered.locator('.answer-rate').textContent()).toBe('100%');
    expect(await answered.locator('.number-state').textContent()).toBe('In use');
    await screenshot(page, 'numbers');

    await nobody.getByRole('button', { name: `Restore ${NOBODY}` }).click();
    await nobody.locator('.number-state', { hasText: 'In use' }).waitFor();
    expect((await rest('GET', `/org/{org}/phone-numbers/${ids[NOBODY]}`)).body.health.rested_until).toBeNull();

    await answered.getByRole('button', { name: `Rest ${ANSWERED}` }).click();
    await answered.locator('.number-state', { hasText: '(manual)' }).waitFor();
    const rested = (await rest('GET', `/org/{org}/phone-numbers/${ids[ANSWERED]}`)).body.health;
    expect(rested.rested_reason).toBe('manual');
    expect(new Date(rested.rested_until).getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    await page.close();
  });

  it('disables rest and restore for a key without telephony:write, naming the scope', {
    timeout: 120_000,
  }, async () => {
    const issued = await rest('POST', '/org/{org}/api-keys', { body: { name: 'viewer', scopes: ['read'] } });
    const page = await openConsole(browser, server, issued.body.api_key, {
      organizationName,
      hash: '#/numbers',
      violations,
    });
    const buttons = page.locator('tr.phone-number button');
    await buttons.first().waitFor();
    expect(await buttons.count()).toBe(2);
    for (const button of await buttons.all()) {
      expect(await button.isDisabled()).toBe(true);
      expect(await button.getAttribute('title')).toContain('telephony:write');
    }
    await page.close();
  });
});
