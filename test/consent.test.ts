// The consent ledger (docs/consent.md) through the real server: REST under
// both prefixes and GraphQL, append-only history, require_consent in the run
// engine (no_consent, nothing dialled; a revocation holds for queued runs),
// the consent recorded on each attempt, a call record's consent_revoked, the
// CSV import's consent columns and erasure. Time from the engine's ManualClock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Dialer } from '../src/engine/dialer.ts';
import { consent as consentRecord } from '../src/records/consents.ts';
import { batchIn, expectStatsMatchRuns } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { ManualClock } from './support/manual-clock.ts';
import { acmeAndGlobex, expectErrorBody, type RestResponse, restClient } from './support/rest.ts';
import { startTestServer, type TestEngineOptions, type TestServer } from './support/server.ts';

const PREFIXES = ['/org/{org}', '/api/org/{org}'];
const history = z.strictObject({ data: z.array(consentRecord.schema) });
type Problem = { path: string; rule: string; message: string };
const problems = (response: RestResponse) => expectErrorBody(response, 400).error as Problem[];

const renewals = {
  scope: 'renewals',
  source: 'web_form',
  captured_at: '2026-01-05T10:00:00.000Z',
  evidence: 'https://forms.example.com/signed/123',
};

describe('consent history over REST and GraphQL', () => {
  let server: TestServer;
  let rest: Awaited<ReturnType<typeof acmeAndGlobex>>['rest'];
  let otherRest: Awaited<ReturnType<typeof acmeAndGlobex>>['otherRest'];
  let apiKey: string;
  let prospectIds: string[];

  beforeAll(async () => {
    server = await startTestServer();
    ({ rest, otherRest, apiKey } = await acmeAndGlobex(server));
    prospectIds = await flows(server, apiKey).prospects(3);
  });
  afterAll(() => server.close());

  it.each(PREFIXES)('adds (201), lists ({"data": [...]}) and revokes by appending under %s', async (prefix) => {
    const id = prospectIds[PREFIXES.indexOf(prefix)]!;
    const url = `${prefix}/prospects/${id}/consents`;
    const added = await rest('POST', url, { body: { ...renewals, expires_at: '2031-01-01T00:00:00Z' } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const entry = consentRecord.schema.parse(added.body);
    expect(entry).toMatchObject({
      channel: 'voice',
      scope: 'renewals',
      source: 'web_form',
      captured_at: renewals.captured_at,
      evidence: renewals.evidence,
      expires_at: '2031-01-01T00:00:00.000Z',
      revoked_at: null,
    });
    expect(entry.id).toMatch(/^cns_/);
    const listed = await rest('GET', url);
    expect(listed.status).toBe(200);
    expect(history.parse(listed.body).data).toEqual([entry]);

    const revoked = await rest('POST', `${url}/revoke`, { body: { scope: 'renewals' } });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    const after = history.parse(revoked.body).data;
    expect(after).toHaveLength(2);
    // The original entry is never changed: the revocation is an entry of its own.
    expect(after[1]).toEqual(entry);
    expect(after[0]).toMatchObject({ scope: 'renewals', source: 'api', revoked_at: expect.any(String) });
    // Revoking a revoked scope appends nothing.
    const again = await rest('POST', `${url}/revoke`, { body: { scope: 'renewals' } });
    expect(history.parse(again.body).data).toEqual(after);
    expect((await rest('GET', url)).body).toEqual({ data: after });
  });

  it('refuses evidence other than text or an https address, and expiry before capture, writing nothing', async () => {
    const url = `/org/{org}/prospects/${prospectIds[2]}/consents`;
    for (const evidence of ['http://forms.example.com/1', 'javascript:alert(1)', 'data:text/html,x', '']) {
      expect(problems(await rest('POST', url, { body: { ...renewals, evidence } })).map((p) => p.path)).toEqual([
        'evidence',
      ]);
    }
    const early = await rest('POST', url, { body: { ...renewals, expires_at: '2025-01-01T00:00:00Z' } });
    expect(problems(early).map((p) => p.path)).toEqual(['expires_at']);
    expect(problems(await rest('POST', url, { body: { ...renewals, channel: 'sms' } })).map((p) => p.path)).toEqual([
      'channel',
    ]);
    expect(problems(await rest('POST', `${url}/revoke`, { body: {} })).map((p) => p.path)).toEqual(['scope']);
    // Words with a colon are text.
    const note = await rest('POST', url, { body: { ...renewals, evidence: 'Note: said yes on the call' } });
    expect(note.status).toBe(201);
    expect(await server.db.prisma.consent.count({ where: { prospectId: prospectIds[2] } })).toBe(1);
  });

  it("another organization's prospect is a 404 for each route, and nothing is written", async () => {
    const url = `/org/{org}/prospects/${prospectIds[0]}/consents`;
    const before = await server.db.prisma.consent.count();
    expectErrorBody(await otherRest('GET', url), 404);
    expectErrorBody(await otherRest('POST', url, { body: renewals }), 404);
    expectErrorBody(await otherRest('POST', `${url}/revoke`, { body: { scope: 'renewals' } }), 404);
    expect(await server.db.prisma.consent.count()).toBe(before);
  });

  it('GraphQL: addConsent, revokeConsent and Prospect.consents', async () => {
    const id = prospectIds[2]!;
    const added = await server.graphql(
      apiKey,
      `mutation($id: ID!, $input: ConsentAddInput!) { addConsent(prospectId: $id, input: $input) { id scope capturedAt revokedAt } }`,
      { id, input: { scope: 'claims', source: 'call', capturedAt: '2026-02-01T00:00:00Z', evidence: 'recorded yes' } },
    );
    expect(added.body.data.addConsent).toMatchObject({ scope: 'claims', revokedAt: null });
    const revoked = await server.graphql(
      apiKey,
      `mutation($id: ID!) { revokeConsent(prospectId: $id, input: { scope: "claims" }) { consents { scope source revokedAt } } }`,
      { id },
    );
    expect(revoked.body.data.revokeConsent.consents[0]).toMatchObject({ scope: 'claims', source: 'api' });
    expect(revoked.body.data.revokeConsent.consents[0].revokedAt).not.toBeNull();
    const read = await server.graphql(apiKey, `query($id: ID!) { prospect(id: $id) { consents { scope } } }`, { id });
    expect(read.body.data.prospect.consents.map((entry: { scope: string }) => entry.scope)).toEqual([
      'claims',
      'claims',
      'renewals',
    ]);
  });
});

// A Monday; 12:00 UTC is 06:00 in Chicago.
const MONDAY_NOON_UTC = '2030-01-07T12:00:00.000Z';

async function withServer(
  engine: TestEngineOptions,
  work: (
    server: TestServer,
    api: ReturnType<typeof flows>,
    rest: ReturnType<typeof restClient>,
    apiKey: string,
  ) => Promise<void>,
) {
  const server = await startTestServer({ engine });
  try {
    const { organizationId, apiKey } = await server.createOrganization();
    await work(server, flows(server, apiKey), restClient(server, organizationId, apiKey), apiKey);
  } finally {
    await server.close();
  }
}

function recordingDialer() {
  const dialled: string[] = [];
  const dialer: Dialer = {
    dial: async (request) => {
      dialled.push(request.toNumber);
      return { outcome: 'answered', durationSeconds: 1, reason: null };
    },
  };
  return { dialled, dialer };
}

describe('require_consent in the run engine', () => {
  it('places a call only with a live consent of the batch scope; the others fail no_consent undialled', async () => {
    const { dialled, dialer } = recordingDialer();
    await withServer({ dialer, clock: new ManualClock(MONDAY_NOON_UTC) }, async (server, api, rest, apiKey) => {
      expect((await rest('PATCH', '/org/{org}/settings', { body: { require_consent: true } })).body).toMatchObject({
        require_consent: true,
      });
      const ids = await api.prospects(5);
      const [live, none, otherScope, expired, revoked] = ids as [string, string, string, string, string];
      const add = (id: string, body: Record<string, unknown>) =>
        rest('POST', `/org/{org}/prospects/${id}/consents`, { body: { ...renewals, ...body } });
      const given = consentRecord.schema.parse((await add(live, {})).body);
      await add(otherScope, { scope: 'marketing' });
      await add(expired, { expires_at: '2029-12-31T00:00:00Z' }); // before the engine's clock
      await add(revoked, {});
      await rest('POST', `/org/{org}/prospects/${revoked}/consents/revoke`, { body: { scope: 'renewals' } });

      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      const batchId = await api.batch(workflowId, ids, { consentScope: 'renewals' });
      const batch = await batchIn(server.db, batchId, ['FINISHED']);
      expect(batch).toMatchObject({ finishedCount: 1, failedCount: 4 });
      expect(dialled).toEqual(['+14150000000']);
      const runs = await server.db.prisma.run.findMany({ where: { batchId }, include: { callAttempts: true } });
      const byProspect = new Map(runs.map((run) => [run.prospectId, run]));
      for (const id of [none, otherScope, expired, revoked]) {
        expect(byProspect.get(id)).toMatchObject({ status: 'FAILED', reason: 'no_consent', callAttempts: [] });
      }
      await expectStatsMatchRuns(server.db, batchId);

      // The consent in force is on the attempt: REST call_attempts[i].consent, GraphQL RunAttempt.consent.
      const runId = byProspect.get(live)!.id;
      const read = await rest('GET', `/org/{org}/runs/${runId}`);
      expect(read.body.call_attempts[0].consent).toEqual(given);
      const graphql = await server.graphql(
        apiKey,
        `query($id: ID!) { run(id: $id) { callAttempts { consent { id scope evidence } } } }`,
        { id: runId },
      );
      expect(graphql.body.data.run.callAttempts[0].consent).toEqual({
        id: given.id,
        scope: 'renewals',
        evidence: renewals.evidence,
      });

      // The batch's own setting overrides the organization's: off, everyone is called.
      const open = await api.batch(workflowId, [none], { requireConsent: false });
      expect(await batchIn(server.db, open, ['FINISHED'])).toMatchObject({ finishedCount: 1 });
      expect(dialled).toHaveLength(2);
      const attempt = await server.db.prisma.runAttempt.findFirstOrThrow({ where: { batchId: open } });
      expect(attempt.consentId).toBeNull();

      // Not required, a live consent of the batch's scope is still recorded on the attempt (evidence for a dispute).
      const evidenced = await api.batch(workflowId, [live], { requireConsent: false, consentScope: 'renewals' });
      expect(await batchIn(server.db, evidenced, ['FINISHED'])).toMatchObject({ finishedCount: 1 });
      const evidencedRun = await server.db.prisma.run.findFirstOrThrow({ where: { batchId: evidenced } });
      const evidencedRead = await rest('GET', `/org/{org}/runs/${evidencedRun.id}`);
      expect(evidencedRead.body.call_attempts[0].consent).toEqual(given);
      const evidencedGraphql = await server.graphql(
        apiKey,
        `query($id: ID!) { run(id: $id) { callAttempts { consent { id } } } }`,
        { id: evidencedRun.id },
      );
      expect(evidencedGraphql.body.data.run.callAttempts[0].consent).toEqual({ id: given.id });
    });
  });

  it('a revocation holds for runs already queued: they fail no_consent when their turn comes', async () => {
    const { dialled, dialer } = recordingDialer();
    const clock = new ManualClock(MONDAY_NOON_UTC);
    await withServer({ dialer, clock }, async (server, api, rest) => {
      const ids = await api.prospects(2);
      for (const id of ids) await rest('POST', `/org/{org}/prospects/${id}/consents`, { body: renewals });
      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      // Queued: the window opens at 09:00 in Chicago, 15:00 UTC.
      const batchId = await api.batch(workflowId, ids, {
        requireConsent: true,
        consentScope: 'renewals',
        callingWindow: { days: ['mon'], start: '09:00', end: '17:00', timezone: 'America/Chicago' },
      });
      await eventually(async () => {
        const runs = await server.db.prisma.run.findMany({ where: { batchId } });
        return runs.every((run) => run.nextAttemptAt.toISOString() === '2030-01-07T15:00:00.000Z') ? true : undefined;
      });
      const revoked = await rest('POST', `/org/{org}/prospects/${ids[0]}/consents/revoke`, {
        body: { scope: 'renewals' },
      });
      expect(revoked.status).toBe(200);
      clock.set('2030-01-07T15:00:00.000Z');
      expect(await batchIn(server.db, batchId, ['FINISHED'])).toMatchObject({ finishedCount: 1, failedCount: 1 });
      expect(dialled).toEqual(['+14150000001']);
      const failed = await server.db.prisma.run.findFirstOrThrow({ where: { batchId, prospectId: ids[0] } });
      expect(failed).toMatchObject({ status: 'FAILED', reason: 'no_consent' });
    });
  });

  it("a call record's consent_revoked revokes the batch's scope: the next batch needing it fails no_consent", async () => {
    const { dialled, dialer } = recordingDialer();
    await withServer({ dialer, clock: new ManualClock(MONDAY_NOON_UTC) }, async (server, api, rest) => {
      const [id] = await api.prospects(1);
      await rest('POST', `/org/{org}/prospects/${id}/consents`, { body: renewals });
      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      const settings = { requireConsent: true, consentScope: 'renewals' };
      const first = await api.batch(workflowId, [id!], settings);
      await batchIn(server.db, first, ['FINISHED']);
      const run = await server.db.prisma.run.findFirstOrThrow({ where: { batchId: first } });
      for (let twice = 0; twice < 2; twice++) {
        const reported = await rest('POST', `/org/{org}/runs/${run.id}/attempts/1/record`, {
          body: { summary: 'asked us to stop', consent_revoked: true },
        });
        expect(reported.status, JSON.stringify(reported.body)).toBe(200);
      }
      const listed = history.parse((await rest('GET', `/org/{org}/prospects/${id}/consents`)).body).data;
      // Reported twice, revoked once.
      expect(listed.map((entry) => [entry.source, entry.revoked_at !== null])).toEqual([
        ['call_record', true],
        ['web_form', false],
      ]);
      const second = await api.batch(workflowId, [id!], settings);
      expect(await batchIn(server.db, second, ['FINISHED', 'FAILED'])).toMatchObject({ failedCount: 1 });
      expect(dialled).toHaveLength(1);
    });
  });
});

describe('consents from a CSV import, and erasure', () => {
  it('imports consent_* columns as consents (source import when empty); a bad one refuses the file', async () => {
    const server = await startTestServer();
    try {
      const { organizationId, apiKey } = await server.createOrganization();
      const rest = restClient(server, organizationId, apiKey);
      const upload = (csv: string) =>
        fetch(`${server.url}/org/${organizationId}/prospects/import`, {
          method: 'POST',
          headers: { 'content-type': 'text/csv', 'x-api-key': apiKey },
          body: csv,
        });
      const header = 'phone,Consent Scope,consent_source,consent_captured_at,consent_evidence,plan\n';
      const refused = await upload(`${header}+14155550100,renewals,,2026-01-01T00:00:00Z,http://x.example.com,Gold\n`);
      expect(refused.status).toBe(400);
      const refusal = (await refused.json()) as { error: { line: number; column: string; message: string }[] };
      expect(refusal.error).toEqual([
        expect.objectContaining({ line: 2, column: 'consent_evidence', message: expect.stringContaining('https') }),
      ]);
      const accepted = await upload(
        `${header}+14155550100,renewals,,2026-01-01T00:00:00Z,signed paper form,Gold\n+14155550101,,,,,Silver\n`,
      );
      expect(accepted.status, await accepted.clone().text()).toBe(201);
      const [withConsent, without] = await server.db.prisma.prospect.findMany({
        where: { organizationId },
        orderBy: { phone: 'asc' },
        include: { consents: true },
      });
      expect(withConsent!.attributes).toEqual({ plan: 'Gold' });
      expect(withConsent!.consents).toEqual([
        expect.objectContaining({ scope: 'renewals', source: 'import', evidence: 'signed paper form' }),
      ]);
      expect(without!.consents).toEqual([]);

      // Erasure empties the evidence; the dated entries stay.
      expect((await rest('DELETE', `/org/{org}/prospects/${withConsent!.id}`)).status).toBe(200);
      const after = history.parse((await rest('GET', `/org/{org}/prospects/${withConsent!.id}/consents`)).body).data;
      expect(after).toEqual([expect.objectContaining({ scope: 'renewals', evidence: null })]);
    } finally {
      await server.close();
    }
  });
});
