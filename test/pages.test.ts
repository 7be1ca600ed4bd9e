// The pages a person opens: the REST docs, and the operator console at
// /dashboard driven in Debian's Chromium over a seeded server whose engine
// calls (simulated): batches with live progress, outcomes, charts, pause; a
// batch's runs and attempts; agents edited through E1 with its validation
// errors next to their fields; insights; the console's documents sent as
// persisted operations (GRAPHQL_PERSISTED_ONLY=on). Screenshots at 1280 and
// 390 px wide go to .ci/ (CI keeps them as artifacts).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { parse, validate } from 'graphql';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultGraphQLLimits } from '../src/config/request-limits.ts';
import { consoleOperations } from '../src/console-operations/console-operations.ts';
import { operationHash } from '../src/graphql/protections.ts';
import { schema } from '../src/schema/index.ts';
import { llm, transcriber, voice } from './support/agent-configs.ts';
import { eventually, flows } from './support/flows.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { type Receiver, startReceiver } from './support/webhook-receiver.ts';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = '.ci';
const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
type Width = keyof typeof WIDTHS;
const hasChromium = existsSync(CHROMIUM) || Boolean(process.env.CI);

async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
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

/** The console is served from dist/console/: built here, so a test never runs an old bundle. */
const buildConsole = () => promisify(execFile)(process.execPath, ['scripts/build-console.js', '--quiet']);

/** Every body a console tab POSTed to /graphql. */
const sentBodies: Record<string, unknown>[] = [];

/** The CSP violations tabs reported (their securitypolicyviolation events): none may happen in any test. */
const cspViolations: string[] = [];
const CSP_VIOLATION = 'CSP violation:';
afterEach(() => {
  expect(cspViolations.splice(0)).toEqual([]);
});

/** A new tab whose CSP violations are collected in cspViolations. */
async function newTab(browser: Browser, width: Width = 'desktop') {
  const page = await browser.newPage({ viewport: WIDTHS[width] });
  await page.addInitScript((mark) => {
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`${mark} ${event.violatedDirective} refused ${event.blockedURI || 'inline'} (${event.sourceFile})`),
    );
  }, CSP_VIOLATION);
  page.on('console', (message) => {
    if (message.text().startsWith(CSP_VIOLATION)) cspViolations.push(message.text());
  });
  return page;
}

/** A tab at `width` with the key entered, on the page of `hash`. */
async function openConsole(
  browser: Browser,
  server: TestServer,
  apiKey: string,
  organizationName: string,
  width: Width = 'desktop',
  hash = '',
) {
  const page = await newTab(browser, width);
  page.on('request', (request) => {
    if (request.url().endsWith('/graphql') && request.method() === 'POST') sentBodies.push(request.postDataJSON());
  });
  await page.goto(`${server.url}/dashboard${hash}`);
  await page.fill('#api-key', apiKey);
  await page.click('#key-form button[type=submit]');
  await page.locator('#status', { hasText: `Connected to ${organizationName}` }).waitFor();
  return page;
}

/** The input of the agent form's field for an E1 member (`llm_config.temperature`). */
const control = (page: Page, path: string) =>
  page.locator(`.field[data-path="${path}"]`).locator('input, select, textarea');

/** A full page, or what the window shows (`fullPage: false`: a form whose save bar stays at the window's bottom). */
async function screenshot(page: Page, name: string, { fullPage = true } = {}) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // From the top (the bar stays on top), once the charts have drawn at their size.
  if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${SCREENSHOTS}/console-${name}.png`, fullPage });
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
    expect(html).toContain('<script src="/docs/start.js"></script>');
    expect(await (await fetch(`${server.url}/docs/start.js`)).text()).toContain("url: '/openapi.json'");
    expect(html).not.toMatch(/(src|href)="https?:/);
    for (const asset of ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css']) {
      const response = await fetch(`${server.url}${asset}`);
      expect(response.status, asset).toBe(200);
      expect((await response.text()).length).toBeGreaterThan(1000);
    }
    expect((await fetch(`${server.url}/docs/assets/../../package.json`)).status).toBe(404);
  });
});

describe.skipIf(!hasChromium)('/docs and GraphiQL in Chromium, under the CSP', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('run with no CSP violation: Swagger UI lists the operations; GraphiQL sends a query and shows the answer', {
    timeout: 60_000,
  }, async () => {
    const docs = await newTab(browser);
    await docs.goto(`${server.url}/docs`);
    await docs.locator('.opblock').first().waitFor();
    expect(await docs.locator('.opblock').count()).toBeGreaterThan(50);

    const graphiql = await newTab(browser);
    await graphiql.goto(`${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`);
    await graphiql.locator('.graphiql-container .monaco-editor').first().waitFor();
    await graphiql.locator('.graphiql-execute-button').click();
    // The page's key header is empty: the answer is the refusal, shown in the result editor.
    await graphiql.locator('.result-window', { hasText: 'UNAUTHENTICATED' }).waitFor();
  });
});

describe('the console documents', () => {
  it('are named, distinct and valid against the schema', () => {
    expect(consoleOperations.length).toBeGreaterThanOrEqual(10);
    expect(new Set(consoleOperations.map((operation) => operation.name)).size).toBe(consoleOperations.length);
    for (const operation of consoleOperations)
      expect(validate(schema, parse(operation.text)), operation.name).toEqual([]);
  });
});

describe.skipIf(!hasChromium)('the console at /dashboard in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let apiKey: string;
  let organizationId: string;
  const ids = {} as {
    finished: string;
    running: string;
    waiting: string;
    renewals: string;
    winBack: string;
    agent: string;
  };

  beforeAll(async () => {
    await buildConsole();
    server = await startTestServer({
      engine: {
        callMs: 250,
        concurrency: 3,
        outcomes: { answered: 0.6, no_answer: 0.2, busy: 0.1, voicemail: 0.05, failed: 0.05 },
      },
    });
    ({ apiKey, organizationId } = await server.createOrganization('Acme Outbound'));
    const api = flows(server, apiKey);
    // Created through REST, which takes the configuration objects as stored (snake_case).
    const created = await fetch(`${server.url}/org/${organizationId}/agents`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Ava (renewals)',
        prompt_template: 'You call customers whose plan renews this month.',
        llm_config: llm('openai', 'gpt-4o', [llm('anthropic', 'claude-3-5-haiku')]),
        voice_config: voice('elevenlabs', 'eleven_turbo_v2', [voice('cartesia', 'sonic-2')]),
        transcriber_config: transcriber('deepgram', [transcriber('assemblyai')]),
        vad_config: { activation_threshold: 0.5, min_speech_duration: 0.1, min_silence_duration: 0.4 },
        greeting_config: { agent_speaks_first: true, greeting: 'Hi {{prospect.first_name}}, this is Ava from Acme.' },
      }),
    });
    expect(created.status).toBe(201);
    ids.agent = ((await created.json()) as { id: string }).id;
    await api.ok(
      `mutation($id: ID!, $tools: [AgentToolInput!]!) { setAgentTools(agentId: $id, tools: $tools) { id } }`,
      {
        id: ids.agent,
        tools: [
          {
            name: 'lookup_plan',
            description: "Finds the customer's plan",
            method: 'GET',
            url: 'https://crm.example.com/plans',
            parameters: [{ name: 'phone', required: true }],
          },
        ],
      },
    );
    const named = (index: number) => ({
      firstName: ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald'][index % 6],
      lastName: `Customer ${index}`,
    });
    ids.renewals = await api.workflow([{ id: 'dial', type: 'call' }]);
    await api.ok(`mutation($id: ID!) { updateWorkflow(id: $id, input: { name: "Renewal calls" }) { id } }`, {
      id: ids.renewals,
    });
    ids.winBack = await api.workflow([{ id: 'dial', type: 'call' }]);
    await api.ok(`mutation($id: ID!) { updateWorkflow(id: $id, input: { name: "Win-back" }) { id } }`, {
      id: ids.winBack,
    });
    ids.finished = await api.batch(ids.renewals, await api.prospects(24, named), { name: 'November renewals' });
    await eventually(
      async () =>
        (await server.db.prisma.batch.findFirstOrThrow({ where: { id: ids.finished } })).status === 'FINISHED'
          ? true
          : undefined,
      60_000,
      'the first batch to finish',
    );
    // Each attempt ~250 ms, one at a time: it runs through the whole test.
    ids.running = await api.batch(
      ids.winBack,
      await api.prospects(400, (index) => ({ ...named(index), phone: `+1415${String(5_000_000 + index)}` })),
      {
        name: 'Win-back wave 1',
        maxConcurrency: 1,
      },
    );
    const weekdays = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
    ids.waiting = await api.batch(
      ids.renewals,
      await api.prospects(5, (index) => ({ ...named(index), phone: `+1415${String(6_000_000 + index)}` })),
      {
        name: 'Weekend follow-up',
        callingWindow: {
          days: [weekdays[(new Date().getUTCDay() + 2) % 7]],
          start: '09:00',
          end: '17:00',
          timezone: 'UTC',
        },
      },
    );
    // Insights: today's from the runs, and the six days before (seeded as generated then).
    await api.ok(`mutation($day: Date!) { generateInsight(periodStart: $day, periodEnd: $day) { id } }`, {
      day: new Date().toISOString().slice(0, 10),
    });
    const calls = [41, 58, 37, 66, 52, 73];
    await server.db.prisma.insight.createMany({
      data: calls.map((totalCalls, index) => {
        const day = new Date(Date.now() - (6 - index) * 86_400_000);
        const issues = Math.round(totalCalls * [0.12, 0.09, 0.16, 0.07, 0.1, 0.05][index]!);
        return {
          organizationId,
          periodStart: new Date(day.toISOString().slice(0, 10)),
          periodEnd: new Date(day.toISOString().slice(0, 10)),
          totalCalls,
          issuesIdentified: issues,
          issueRate: issues / totalCalls,
          executiveSummary: `${totalCalls} calls ended, ${issues} with an issue.`,
        };
      }),
    });
    // Some attempts of the running batch, for its chart.
    await eventually(
      async () =>
        (await server.db.prisma.runAttempt.count({ where: { batchId: ids.running, outcome: { not: null } } })) >= 8
          ? true
          : undefined,
      60_000,
    );
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The stored attempts of a batch by outcome. */
  async function storedOutcomes(batchId: string) {
    const groups = await server.db.prisma.runAttempt.groupBy({ by: ['outcome'], where: { batchId }, _count: true });
    return Object.fromEntries(groups.map((group) => [group.outcome ?? 'open', group._count])) as Record<string, number>;
  }

  it('lists every batch with its outcomes, chart, answer rate and window state, filters them, and keeps the key in the tab', {
    timeout: 120_000,
  }, async () => {
    for (const width of ['desktop', 'phone'] as const) {
      const page = await openConsole(browser, server, apiKey, 'Acme Outbound', width);
      const finished = page.locator(`article[data-batch-id="${ids.finished}"]`);
      await finished.waitFor();
      expect(await page.locator('article.batch-card').count()).toBe(3);

      const outcomes = await storedOutcomes(ids.finished);
      const attempts = Object.values(outcomes).reduce((sum, value) => sum + value, 0);
      expect(await finished.locator('[data-status]').getAttribute('data-status')).toBe('FINISHED');
      expect(await finished.locator('.legend .total .count').textContent()).toBe(String(attempts));
      for (const [field, outcome] of [
        ['answered', 'answered'],
        ['noAnswer', 'no_answer'],
        ['busy', 'busy'],
        ['voicemail', 'voicemail'],
        ['failed', 'failed'],
      ]) {
        expect(await finished.locator(`.legend .${field} .count`).textContent(), outcome).toBe(
          String(outcomes[outcome!] ?? 0),
        );
      }
      const rate = (outcomes.answered ?? 0) / attempts;
      expect(await finished.locator('.answer-rate .value').textContent()).toBe(`${Math.round(rate * 1000) / 10}%`);
      expect(await finished.locator('.eta .value').textContent()).toBe('Done');
      expect(await finished.locator('.counts').textContent()).toMatch(/^24 \/ 24 done/);
      expect(await finished.locator('canvas[role=img]').getAttribute('aria-label')).toContain(`${attempts} attempts`);

      const waiting = page.locator(`article[data-batch-id="${ids.waiting}"]`);
      await waiting.locator('.window-state', { hasText: /^waiting for \w{3} 09:00 UTC$/ }).waitFor();
      expect(await waiting.locator('.eta .note').textContent()).toBe('window closed');

      // The running batch is followed live and shows its pace.
      const running = page.locator(`article[data-batch-id="${ids.running}"]`);
      await running.locator('.live').waitFor();
      await running.locator('.pace .value', { hasText: /\/min$/ }).waitFor();
      expect(await running.locator('.eta .value').textContent()).toMatch(/^≈ \d/);
      await screenshot(page, `batches-${width}`);

      if (width === 'desktop') {
        await page.getByLabel('Status').selectOption('FINISHED');
        await page.locator('article.batch-card').nth(1).waitFor({ state: 'detached' });
        expect(
          await page
            .locator('article.batch-card')
            .evaluateAll((cards) => cards.map((card) => (card as HTMLElement).dataset.batchId)),
        ).toEqual([ids.finished]);
        await page.getByLabel('Status').selectOption('');
        await page.getByLabel('Workflow').selectOption(ids.renewals);
        await page.locator(`article[data-batch-id="${ids.running}"]`).waitFor({ state: 'detached' });
        // The filtered list may still be rendering: wait for it to settle on the workflow's two batches.
        await expect.poll(() => page.locator('article.batch-card').count(), { timeout: 10_000 }).toBe(2);
      }
      // The key stays in this tab only.
      expect(await page.evaluate(() => sessionStorage.getItem('gateway.apiKey'))).toBe(apiKey);
      expect(await page.evaluate(() => localStorage.length)).toBe(0);
      await page.close();
    }
    // Persisted operations only: a hash, never a document's text.
    const hashes = consoleOperations.map((operation) => operationHash(operation.text));
    expect(sentBodies.length).toBeGreaterThan(5);
    for (const body of sentBodies) {
      expect(body.query).toBeUndefined();
      expect(hashes).toContain(
        (body.extensions as { persistedQuery: { sha256Hash: string } }).persistedQuery.sha256Hash,
      );
    }
  });

  it('pauses a batch from the console: the server stores it and the live views show it', {
    timeout: 120_000,
  }, async () => {
    const list = await openConsole(browser, server, apiKey, 'Acme Outbound');
    const detail = await openConsole(browser, server, apiKey, 'Acme Outbound', 'desktop', `#/batches/${ids.running}`);
    await detail.locator('.batch-page .live').waitFor();
    expect(await detail.locator('h1 [data-status]').getAttribute('data-status')).toBe('IN_PROGRESS');

    const card = list.locator(`article[data-batch-id="${ids.running}"]`);
    await card.getByRole('button', { name: 'Pause Win-back wave 1' }).click();
    await card.locator('[data-status="PAUSED"]').waitFor({ timeout: 15_000 });
    expect((await server.db.prisma.batch.findFirstOrThrow({ where: { id: ids.running } })).status).toBe('PAUSED');
    // The other tab was not touched: its subscription delivered the change.
    await detail.locator('h1 [data-status="PAUSED"]').waitFor({ timeout: 15_000 });
    await detail.getByRole('button', { name: 'Resume Win-back wave 1' }).waitFor();
    expect(await detail.locator('.eta .note').textContent()).toBe('paused');

    // Resumed from the batch page, the list sees it too.
    await detail.getByRole('button', { name: 'Resume Win-back wave 1' }).click();
    await card.locator('[data-status="IN_PROGRESS"], [data-status="PENDING"]').waitFor({ timeout: 15_000 });
    expect(['PENDING', 'IN_PROGRESS']).toContain(
      (await server.db.prisma.batch.findFirstOrThrow({ where: { id: ids.running } })).status,
    );
    await list.close();
    await detail.close();
  });

  it("disables what the key's scopes do not allow, naming the scope: a read-only key sees batches and agents, and can change neither", {
    timeout: 120_000,
  }, async () => {
    const issued = await fetch(`${server.url}/org/${organizationId}/api-keys`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'dashboard', scopes: ['read'] }),
    });
    const readOnly = ((await issued.json()) as { api_key: string }).api_key;
    const list = await openConsole(browser, server, readOnly, 'Acme Outbound');
    const cancel = list.locator(`article[data-batch-id="${ids.waiting}"] button.cancel`);
    await cancel.waitFor();
    expect(await cancel.isDisabled()).toBe(true);
    expect(await cancel.getAttribute('title')).toContain('batches:write');
    expect(await list.locator(`article[data-batch-id="${ids.waiting}"] button.retry`).getAttribute('title')).toContain(
      'batches:write',
    );
    const agent = await openConsole(browser, server, readOnly, 'Acme Outbound', 'desktop', `#/agents/${ids.agent}`);
    await agent.locator('.save-bar').waitFor();
    expect(await agent.locator('.save-bar button[type=submit]').isDisabled()).toBe(true);
    expect(await agent.locator('.save-state').textContent()).toContain('agents:write');
    // The full key's controls stay enabled.
    const full = await openConsole(browser, server, apiKey, 'Acme Outbound');
    const fullCancel = full.locator(`article[data-batch-id="${ids.waiting}"] button.cancel`);
    await fullCancel.waitFor();
    expect(await fullCancel.isDisabled()).toBe(false);
    for (const page of [list, agent, full]) await page.close();
  });

  it("shows a batch's runs with E6's filters, sort and paging, each run's attempts, and its outcomes over time", {
    timeout: 120_000,
  }, async () => {
    for (const width of ['desktop', 'phone'] as const) {
      const page = await openConsole(browser, server, apiKey, 'Acme Outbound', width, `#/batches/${ids.finished}`);
      const runs = page.locator('section.runs');
      await runs.locator('.runs-summary', { hasText: /^1–24 of 24$/ }).waitFor();
      expect(await runs.locator('tbody.run').count()).toBe(24);
      expect(await page.locator('.batch-page canvas[role=img]').getAttribute('aria-label')).toContain(
        'by outcome, last hour',
      );

      const failedRuns = await server.db.prisma.run.count({ where: { batchId: ids.finished, status: 'FAILED' } });
      await runs.locator('select[name=status]').selectOption('FAILED');
      await runs
        .locator('.runs-summary', { hasText: failedRuns ? new RegExp(`of ${failedRuns}$`) : /^0 of 0$/ })
        .waitFor();
      expect(await runs.locator('tbody.run').count()).toBe(failedRuns);
      await runs.locator('select[name=status]').selectOption('');
      await runs.locator('.runs-summary', { hasText: /^1–24 of 24$/ }).waitFor();

      // Earliest first: the first run started is the first row; its attempts open under it.
      await runs.locator('select[name=order]').selectOption('STARTED_ASC');
      const first = await server.db.prisma.run.findFirstOrThrow({
        where: { batchId: ids.finished },
        orderBy: [{ startedAt: 'asc' }, { id: 'asc' }],
        include: { prospect: true },
      });
      const row = runs.locator('tbody.run').first();
      await page.waitForFunction(
        (id) => document.querySelector('tbody.run')?.getAttribute('data-run-id') === id,
        first.id,
      );
      expect(await row.locator('.phone').textContent()).toBe(first.prospect.phone);
      await row.locator('.attempts-toggle').click();
      const stored = await server.db.prisma.runAttempt.findMany({
        where: { runId: first.id },
        orderBy: { number: 'asc' },
      });
      const items = row.locator('.call-attempts li');
      expect(await items.count()).toBe(stored.length);
      expect(await items.first().locator('.outcome').textContent()).toBe(stored[0]!.outcome!.replace('_', ' '));
      await screenshot(page, `batch-${width}`);
      await page.close();
    }

    // Paging: the running batch has 400 runs, 25 a page; paused (and its last call ended), they hold still.
    await flows(server, apiKey).setStatus(ids.running, 'PAUSED');
    await eventually(async () =>
      (await server.db.prisma.batch.findFirstOrThrow({ where: { id: ids.running } })).inProgressCount === 0
        ? true
        : undefined,
    );
    const page = await openConsole(browser, server, apiKey, 'Acme Outbound', 'desktop', `#/batches/${ids.running}`);
    const runs = page.locator('section.runs');
    await runs.locator('.runs-summary', { hasText: /^1–25 of 400$/ }).waitFor();
    const firstPage = await runs
      .locator('tbody.run')
      .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.runId));
    await runs.getByRole('button', { name: 'Next →' }).click();
    await runs.locator('.runs-summary', { hasText: /^26–50 of 400$/ }).waitFor();
    const secondPage = await runs
      .locator('tbody.run')
      .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.runId));
    expect(secondPage).toHaveLength(25);
    expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);
    await runs.getByRole('button', { name: '← Previous' }).click();
    await runs.locator('.runs-summary', { hasText: /^1–25 of 400$/ }).waitFor();
    await page.close();
  });

  it("shows an agent's configuration in sections and edits it through E1, with E1's validation errors next to their fields", {
    timeout: 120_000,
  }, async () => {
    const page = await openConsole(browser, server, apiKey, 'Acme Outbound', 'desktop', '#/agents');
    const row = page.locator(`tr[data-agent-id="${ids.agent}"]`);
    await row.waitFor();
    expect(await row.locator('td').nth(1).textContent()).toBe('openai · gpt-4o');
    expect(await page.locator('.agents-table tbody tr').count()).toBe(
      await server.db.prisma.agent.count({ where: { organizationId } }),
    );
    await screenshot(page, 'agents-desktop');
    await row.getByRole('link', { name: 'Ava (renewals)' }).click();

    const llmSection = page.locator('fieldset.section-llmConfig');
    await llmSection.waitFor();
    expect(await llmSection.locator('.fallbacks li').allTextContents()).toEqual(['anthropic · claude-3-5-haiku']);
    expect(await page.locator('fieldset.section-voiceConfig .fallbacks li').allTextContents()).toEqual([
      'cartesia · sonic-2 · rachel',
    ]);
    expect(await page.locator('fieldset.section-transcriberConfig .fallbacks li').allTextContents()).toEqual([
      'assemblyai · nova-3',
    ]);
    expect(await page.getByLabel('Model', { exact: true }).first().inputValue()).toBe('gpt-4o');
    expect(await page.locator('section.section-tools').textContent()).toContain('GET https://crm.example.com/plans');

    const temperature = control(page, 'llm_config.temperature');
    await temperature.fill('3');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const error = page.locator('.field[data-path="llm_config.temperature"] .field-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Too big: expected number to be <=2');
    expect(await temperature.getAttribute('aria-invalid')).toBe('true');
    expect(await temperature.getAttribute('aria-describedby')).toContain((await error.getAttribute('id'))!);
    const unchanged = await server.db.prisma.agent.findFirstOrThrow({ where: { id: ids.agent } });
    expect((unchanged.llmConfig as { temperature: number }).temperature).toBe(0.7);
    await screenshot(page, 'agent-desktop', { fullPage: false });

    await temperature.fill('0.4');
    await control(page, 'greeting_config.greeting').fill('Hello {{prospect.first_name}}!');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.save-state', { hasText: 'Saved.' }).waitFor();
    expect(await error.count()).toBe(0);
    const saved = await server.db.prisma.agent.findFirstOrThrow({ where: { id: ids.agent } });
    const llmConfig = saved.llmConfig as { temperature: number; fallbacks: { model: string }[]; top_k: number };
    // The section is sent whole: members the form does not show, and the fallbacks, stay.
    expect(llmConfig.temperature).toBe(0.4);
    expect(llmConfig.top_k).toBe(40);
    expect(llmConfig.fallbacks.map((fallback) => fallback.model)).toEqual(['claude-3-5-haiku']);
    expect(saved.greetingConfig).toEqual({ agent_speaks_first: true, greeting: 'Hello {{prospect.first_name}}!' });
    expect(saved.voiceConfig).toEqual(unchanged.voiceConfig);
    await page.close();

    const phone = await openConsole(browser, server, apiKey, 'Acme Outbound', 'phone', `#/agents/${ids.agent}`);
    await phone.locator('fieldset.section-llmConfig').waitFor();
    await control(phone, 'llm_config.temperature').fill('-1');
    await phone.getByRole('button', { name: 'Save changes' }).click();
    await phone.locator('.field[data-path="llm_config.temperature"] .field-error').waitFor();
    await control(phone, 'llm_config.temperature').evaluate((input) => input.scrollIntoView({ block: 'center' }));
    await screenshot(phone, 'agent-phone', { fullPage: false });
    await phone.close();
  });

  it('shows the insights: calls and issue rate over time, and each summary', { timeout: 60_000 }, async () => {
    const stored = await server.db.prisma.insight.findMany({ where: { organizationId } });
    for (const width of ['desktop', 'phone'] as const) {
      const page = await openConsole(browser, server, apiKey, 'Acme Outbound', width, '#/insights');
      await page.locator('li.insight').first().waitFor();
      expect(await page.locator('li.insight').count()).toBe(stored.length);
      for (const insight of stored) {
        expect(await page.locator(`li[data-insight-id="${insight.id}"] .summary`).textContent()).toBe(
          insight.executiveSummary,
        );
      }
      const calls = stored.reduce((sum, insight) => sum + insight.totalCalls, 0);
      expect(await page.locator('canvas[role=img]').getAttribute('aria-label')).toContain(`${calls} calls in all`);
      await screenshot(page, `insights-${width}`);
      await page.close();
    }
  });
});

describe.skipIf(!hasChromium)("the console's webhooks page in Chromium", () => {
  let server: TestServer;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    await buildConsole();
    // No retries: a delivery the receiver refuses fails at once.
    server = await startTestServer({ webhooks: { deliver: true, retryScheduleMs: [] } });
  });
  afterAll(async () => {
    await server?.close();
    for (const receiver of receivers) await receiver.close();
  });

  it('lists the endpoints with their deliveries, and replays a failed one', { timeout: 120_000 }, async () => {
    const { apiKey, organizationId } = await server.createOrganization('Hooked org');
    const [crm, flaky] = [await startReceiver(), await startReceiver()];
    receivers.push(crm, flaky);
    flaky.answer = () => 500;
    const endpoint = async (url: string, description: string) => {
      const response = await fetch(`${server.url}/org/${organizationId}/webhook-endpoints`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ url, events: ['batch.status_changed'], description }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const crmEndpoint = await endpoint(crm.url, 'CRM sync');
    const flakyEndpoint = await endpoint(flaky.url, 'Analytics (down)');
    // A batch that waits for a date far away: pausing it is the one event.
    const api = flows(server, apiKey);
    const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(2), {
      scheduledAt: '2099-01-01T00:00:00Z',
    });
    await api.setStatus(batchId, 'PAUSED');
    const failed = await eventually(async () => {
      const deliveries = await server.db.prisma.webhookDelivery.findMany({ where: { organizationId } });
      const settled = deliveries.filter((delivery) => delivery.status !== 'pending');
      return settled.length >= 2 ? deliveries.find((delivery) => delivery.status === 'failed') : undefined;
    });
    expect(failed?.endpointId).toBe(flakyEndpoint);

    const browser = await launchChromium();
    try {
      for (const width of ['phone', 'desktop'] as const) {
        const page = await openConsole(browser, server, apiKey, 'Hooked org', width, '#/webhooks');
        const crmCard = page.locator(`article[data-endpoint-id="${crmEndpoint}"]`);
        const flakyCard = page.locator(`article[data-endpoint-id="${flakyEndpoint}"]`);
        await crmCard.locator('.delivery [data-status="delivered"]').waitFor();
        expect(await crmCard.locator('.endpoint-url').textContent()).toBe(crm.url);
        expect(await crmCard.locator('.delivery .event-type').allTextContents()).toEqual(['batch.status_changed']);
        const failedRow = flakyCard.locator(`tr[data-delivery-id="${failed!.id}"]`);
        expect(await failedRow.locator('[data-status]').textContent()).toBe('failed');
        expect(await failedRow.locator('.answer').textContent()).toMatch(/^HTTP 500 · \d+ ms/);
        expect(await flakyCard.locator('.card-title .badge').textContent()).toMatch(/^Failing since /);
        await screenshot(page, `webhooks-${width}`);
        if (width === 'desktop') {
          // The receiver is back: a replay delivers the same event.
          flaky.answer = () => 204;
          await failedRow.getByRole('button', { name: /^Replay batch.status_changed/ }).click();
          await eventually(async () =>
            (await server.db.prisma.webhookDelivery.findFirstOrThrow({ where: { id: failed!.id } })).status ===
            'delivered'
              ? true
              : undefined,
          );
          await failedRow.locator('[data-status="delivered"]').waitFor({ timeout: 20_000 });
          expect(flaky.received.at(-1)!.headers['webhook-id']).toBe(failed!.eventId);
        }
        await page.close();
      }
    } finally {
      await browser.close();
    }
  });
});

describe.skipIf(!hasChromium)('the console with GRAPHQL_PERSISTED_ONLY=on', () => {
  let server: TestServer;
  beforeAll(async () => {
    await buildConsole();
    server = await startTestServer({
      graphqlLimits: { ...defaultGraphQLLimits, persistedOnly: true },
      engine: { callMs: 20 },
    });
  });
  afterAll(() => server?.close());

  it('runs its own operations, and the server still refuses any other', { timeout: 120_000 }, async () => {
    const { apiKey, organizationId: org } = await server.createOrganization('Allow-list org');
    const refused = await server.graphql(apiKey, '{ organization { name } }');
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toMatch(/^PersistedQueryOnly/);

    // Seeded through the REST layer, whose operations are persisted too.
    const rest = (method: string, path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    const agent = await rest('POST', `/org/${org}/agents`, {
      name: 'Allow-listed agent',
      llm_config: { provider: 'openai', model: 'gpt-4o-mini' },
    });
    const workflow = await rest('POST', `/org/${org}/workflows`, {
      name: 'Listed',
      definition: { steps: [{ id: 'dial', type: 'call', agent_id: agent.id }] },
    });
    const prospects = await rest('POST', `/org/${org}/prospects`, {
      prospects: [
        { first_name: 'Ada', phone: '+14155550101' },
        { first_name: 'Alan', phone: '+14155550102' },
      ],
    });
    const batch = await rest('POST', `/org/${org}/workflows/${workflow.id}/batches`, {
      name: 'Listed batch',
      prospect_ids: prospects.created.map((p: { id: string }) => p.id),
    });
    await eventually(async () =>
      (await server.db.prisma.batch.findFirstOrThrow({ where: { id: batch.id } })).status === 'FINISHED'
        ? true
        : undefined,
    );

    const browser = await launchChromium();
    try {
      const page = await openConsole(browser, server, apiKey, 'Allow-list org');
      const card = page.locator(`article[data-batch-id="${batch.id}"]`);
      await card.locator('.legend .answered .count', { hasText: '2' }).waitFor();
      await card.getByRole('link', { name: 'Listed batch' }).click();
      await page.locator('section.runs .runs-summary', { hasText: /^1–2 of 2$/ }).waitFor();
      await page.goto(`${server.url}/dashboard#/agents/${agent.id}`);
      await control(page, 'llm_config.model').fill('gpt-4o');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('.save-state', { hasText: 'Saved.' }).waitFor();
      expect((await server.db.prisma.agent.findFirstOrThrow({ where: { id: agent.id } })).llmConfig).toMatchObject({
        model: 'gpt-4o',
      });
      await page.goto(`${server.url}/dashboard#/insights`);
      await page.locator('.insights-page .state').waitFor();
      expect(await page.locator('.state.error').count()).toBe(0);
    } finally {
      await browser.close();
    }
  });
});
