// The console's pages of call records, in Debian's Chromium against a server
// whose engine calls (simulated, some ending `ivr` or `call_screening`) and
// whose records are reported through POST /runs/{run_id}/attempts/{attempt}/record,
// as an agent worker does after the call: a run's page shows each attempt's
// transcript as a conversation with its detection, disposition, summary,
// evaluations and recording link, all as text.
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { batchIn } from './support/batch-checks.ts';
import { buildConsole, hasChromium, launchChromium, openConsole, screenshot } from './support/console-browser.ts';
import { flows } from './support/flows.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const HOSTILE = '<img src=x onerror="document.title=\'owned\'"> <b>bold?</b>';

const conversation = [
  { role: 'agent', text: 'Hi Ada, this is Ava from Acme. Is now a good time?', started_ms: 0, ended_ms: 2400 },
  { role: 'callee', text: `Sure. ${HOSTILE}`, started_ms: 2600, ended_ms: 4100 },
  { role: 'agent', text: 'Can I book you a demo on Tuesday at ten?', started_ms: 4300, ended_ms: 6200 },
  { role: 'callee', text: 'Tuesday at ten works.', started_ms: 6400, ended_ms: 7600 },
];

const detected = (result: string) => ({ result, confidence: 0.9, detected_ms: 900 });

describe.skipIf(!hasChromium)("the console's call records in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let apiKey: string;
  let rest: ReturnType<typeof restClient>;
  let batchId: string;
  let runIds: string[];
  let evaluationId: number;
  const violations: string[] = [];
  afterEach(() => {
    expect(violations.splice(0)).toEqual([]);
  });

  beforeAll(async () => {
    await buildConsole();
    server = await startTestServer({
      engine: { callMs: 20, concurrency: 4, outcomes: { answered: 0.5, ivr: 0.25, call_screening: 0.25 } },
    });
    const organization = await server.createOrganization('Acme Records');
    apiKey = organization.apiKey;
    rest = restClient(server, organization.organizationId, apiKey);
    const api = flows(server, apiKey);
    batchId = await api.batch(
      await api.workflow([{ id: 'dial', type: 'call' }]),
      await api.prospects(12, (index) => ({
        firstName: ['Ada', 'Alan', 'Grace'][index % 3],
        lastName: `Caller ${index}`,
      })),
      { name: 'December demos' },
    );
    await batchIn(server.db, batchId, ['FINISHED']);
    const runs = await server.db.prisma.run.findMany({ where: { batchId }, orderBy: { id: 'asc' } });
    runIds = runs.map((run) => run.id);
    const attempt = await server.db.prisma.runAttempt.findFirstOrThrow({ where: { runId: runIds[0] } });
    const version = await server.db.prisma.workflowVersion.findFirstOrThrow({
      where: { id: runs[0]!.workflowVersionId },
    });
    const agentId = (version.definition as { steps: { agent_id: string }[] }).steps[0]!.agent_id;
    const evaluation = await rest('POST', '/org/{org}/agents/evals', {
      body: { agent_id: agentId, title: 'Books a demo', score: 70 },
    });
    expect(evaluation.status).toBe(201);
    evaluationId = evaluation.body.id;
    // The post-call analysis of the first run's call.
    const reported = await rest('POST', `/org/{org}/runs/${runIds[0]}/attempts/${attempt.number}/record`, {
      body: {
        transcript: conversation,
        detection: { result: 'human', confidence: 0.97, detected_ms: 1200 },
        summary: `Booked a demo for Tuesday 10:00. ${HOSTILE}`,
        disposition: { label: 'demo booked', category: 'success' },
        recording_url: 'https://recordings.example.com/calls/1.ogg',
        evaluations: [{ evaluation_id: evaluationId, score: 85, passed: true, reason: 'offered a slot' }],
      },
    });
    expect(reported.status).toBe(200);
    // Other calls' analyses, for the batch's breakdown.
    const analyses = [
      { disposition: { label: 'demo booked', category: 'success' }, detection: detected('human') },
      { disposition: { label: 'not interested', category: 'neutral' }, detection: detected('human') },
      { disposition: { label: 'wrong number', category: 'issue' }, detection: detected('voicemail') },
      { detection: detected('ivr') },
      {
        transcript: [{ role: 'callee', text: 'I want a refund for my last invoice.', started_ms: 0, ended_ms: 2000 }],
        summary: 'Asked for money back.',
        disposition: { label: 'refund requested', category: 'issue' },
      },
    ];
    for (const [index, body] of analyses.entries()) {
      const part = await rest('POST', `/org/{org}/runs/${runIds[index + 2]}/attempts/1/record`, { body });
      expect(part.status).toBe(200);
    }
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows a run's transcript as a conversation, with its detection, disposition, summary, evaluations and recording", {
    timeout: 60_000,
  }, async () => {
    for (const width of ['desktop', 'phone'] as const) {
      const page = await openConsole(browser, server, apiKey, {
        organizationName: 'Acme Records',
        width,
        hash: `#/batches/${batchId}`,
        violations,
      });
      // From the batch's runs to the run's page.
      await page.locator(`tbody.run[data-run-id="${runIds[0]}"] a.prospect`).click();
      const attempt = page.locator('.run-page article.attempt[data-attempt="1"]');
      await attempt.locator('.transcript').waitFor();
      expect(await page.locator('.breadcrumb').textContent()).toContain('December demos');

      const turns = attempt.locator('.transcript li.turn');
      expect(await turns.evaluateAll((items) => items.map((item) => item.className))).toEqual([
        'turn turn-agent',
        'turn turn-callee',
        'turn turn-agent',
        'turn turn-callee',
      ]);
      expect(await turns.locator('.text').allTextContents()).toEqual(conversation.map((turn) => turn.text));
      expect(await turns.locator('.speaker').allTextContents()).toEqual([
        'Agent · 0.0 s',
        'Callee · 2.6 s',
        'Agent · 4.3 s',
        'Callee · 6.4 s',
      ]);
      // The callee's words and the summary are text: no element made of them, no script run.
      expect(await attempt.locator('img, b').count()).toBe(0);
      expect(await page.title()).not.toBe('owned');
      expect(await attempt.locator('.summary p').textContent()).toBe(`Booked a demo for Tuesday 10:00. ${HOSTILE}`);

      expect(await attempt.locator('.detection dd').textContent()).toBe('human · 97% sure · at 1.2 s');
      expect(await attempt.locator('.disposition dd').textContent()).toBe('demo booked (success)');
      const evaluation = attempt.locator(`.evaluations li[data-evaluation-id="${evaluationId}"]`);
      await evaluation.locator('.evaluation', { hasText: 'Books a demo' }).waitFor();
      expect(await evaluation.textContent()).toBe('passed Books a demo 85/100 · offered a slot');
      const recording = attempt.getByRole('link', { name: 'Listen to the recording' });
      expect(await recording.getAttribute('href')).toBe('https://recordings.example.com/calls/1.ogg');
      expect(await recording.getAttribute('rel')).toContain('noopener');
      await screenshot(page, `run-${width}`);

      // A run whose worker reported nothing says so.
      await page.goto(`${server.url}/dashboard#/runs/${runIds[1]}`);
      await page.locator('.run-page article.attempt .state.empty').waitFor();
      expect(await page.locator('.run-page .transcript').count()).toBe(0);
      await page.close();
    }
  });

  it("charts a batch's call records by disposition and detection", { timeout: 60_000 }, async () => {
    for (const width of ['desktop', 'phone'] as const) {
      const page = await openConsole(browser, server, apiKey, {
        organizationName: 'Acme Records',
        width,
        hash: `#/batches/${batchId}`,
        violations,
      });
      const card = page.locator('.batch-page .call-records');
      await card.locator('.dispositions canvas').waitFor();
      expect(await card.locator('.card-title .subtitle').textContent()).toBe('6 records reported');
      expect(await card.locator('.dispositions .breakdown-legend li').allTextContents()).toEqual([
        '2 demo booked',
        '1 not interested',
        '1 refund requested',
        '1 wrong number',
      ]);
      expect(await card.locator('.detections .breakdown-legend li').allTextContents()).toEqual([
        '3 human',
        '1 IVR',
        '1 voicemail',
      ]);
      expect(await card.locator('.dispositions canvas').getAttribute('aria-label')).toBe(
        "Dispositions of December demos's call records, 5 records: demo booked 2, not interested 1, refund requested 1, wrong number 1",
      );
      expect(await card.locator('.detections canvas').getAttribute('aria-label')).toContain(
        'human 3, IVR 1, voicemail 1',
      );
      // The bars are coloured by category: success green, issue red.
      expect(
        await card
          .locator('.dispositions .breakdown-legend li i')
          .evaluateAll((marks) => marks.map((mark) => getComputedStyle(mark).backgroundColor)),
      ).toEqual(['rgb(47, 158, 68)', 'rgb(134, 142, 150)', 'rgb(224, 49, 49)', 'rgb(224, 49, 49)']);
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, `batch-records-${width}`);
      await page.close();
    }
  });

  it('finds calls by words said and by category, each opening its run', { timeout: 60_000 }, async () => {
    const page = await openConsole(browser, server, apiKey, {
      organizationName: 'Acme Records',
      hash: '#/calls',
      violations,
    });
    const found = page.locator('.calls-page .found-calls li');
    const summary = page.locator('.calls-page .calls-summary');
    await summary.filter({ hasText: /^1–6 of 6$/ }).waitFor();
    // Stemmed: "refunds" finds "refund".
    await page.getByLabel('Words said').fill('refunds');
    await page.getByRole('button', { name: 'Search' }).click();
    await summary.filter({ hasText: /^1–1 of 1$/ }).waitFor();
    expect(await found.first().getAttribute('data-run-id')).toBe(runIds[6]);
    expect(await found.first().locator('.summary').textContent()).toBe('Asked for money back.');
    await page.getByLabel('Words said').fill('');
    await page.locator('select[name=category]').selectOption('issue');
    await page.getByRole('button', { name: 'Search' }).click();
    await summary.filter({ hasText: /^1–2 of 2$/ }).waitFor();
    expect(
      (await found.evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.runId))).sort(),
    ).toEqual([runIds[4], runIds[6]].sort());
    await screenshot(page, 'calls-desktop');
    await page.locator(`.found-call[data-run-id="${runIds[6]}"] a.open`).click();
    await page.locator('.run-page .transcript .turn-callee', { hasText: 'refund' }).waitFor();
    await page.close();
  });

  it('lists the ivr and call_screening outcomes with the others', { timeout: 60_000 }, async () => {
    const stored = await server.db.prisma.runAttempt.groupBy({ by: ['outcome'], where: { batchId }, _count: true });
    const counts = Object.fromEntries(stored.map((group) => [group.outcome, group._count]));
    const page = await openConsole(browser, server, apiKey, {
      organizationName: 'Acme Records',
      hash: `#/batches/${batchId}`,
      violations,
    });
    const legend = page.locator('.batch-page .outcomes .legend');
    await legend.waitFor();
    expect(await legend.locator('.ivr').textContent()).toBe(`${counts.ivr ?? 0} IVR`);
    expect(await legend.locator('.callScreening').textContent()).toBe(`${counts.call_screening ?? 0} call screening`);
    expect(await legend.locator('.answered .count').textContent()).toBe(String(counts.answered ?? 0));
    await page.close();
  });
});
