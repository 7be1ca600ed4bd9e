// The run engine is fair between organizations: a small batch of one starts
// at the next free line while another runs a long campaign on the same
// instance, an organization's max_concurrent_calls bounds its calls over the
// deployment, and two batches of one organization advance side by side.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Dialer } from '../src/engine/dialer.ts';
import { fairShares } from '../src/engine/fair-shares.ts';
import { Lines } from '../src/engine/lines.ts';
import { batchIn } from './support/batch-checks.ts';
import { flows } from './support/flows.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

async function withTwoOrganizations(
  engine: { concurrency: number; callMs: number; dialer?: Dialer },
  work: (
    server: TestServer,
    noisy: ReturnType<typeof flows> & { rest: ReturnType<typeof restClient>; organizationId: string },
    quiet: ReturnType<typeof flows> & { rest: ReturnType<typeof restClient>; organizationId: string },
  ) => Promise<void>,
) {
  const server = await startTestServer({ engine });
  try {
    const organization = async (name: string) => {
      const { organizationId, apiKey } = await server.createOrganization(name);
      return { ...flows(server, apiKey), rest: restClient(server, organizationId, apiKey), organizationId };
    };
    await work(server, await organization('Noisy'), await organization('Quiet'));
  } finally {
    await server.close();
  }
}

/** The attempts of a batch, by start. */
const attemptsOf = (server: TestServer, batchId: string) =>
  server.db.prisma.runAttempt.findMany({ where: { batchId }, orderBy: [{ startedAt: 'asc' }, { id: 'asc' }] });

/** The most attempts open at one instant among these. */
function mostAtOnce(attempts: { startedAt: Date; endedAt: Date | null }[]) {
  const edges = attempts.flatMap((attempt) => [
    [attempt.startedAt.getTime(), 1],
    [attempt.endedAt!.getTime(), -1],
  ]);
  // An attempt that ends as another starts at the same millisecond is not open with it.
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let open = 0;
  let most = 0;
  for (const [, change] of edges) {
    open += change!;
    most = Math.max(most, open);
  }
  return most;
}

describe('a fair engine', () => {
  it("starts another organization's one-run batch at the next free line while a 200-run batch holds every line", async () => {
    const concurrency = 2;
    // Calls last 30 ms once the quiet batch exists: until then the campaign holds its lines, however
    // long creating the batch takes on a loaded machine (it could otherwise be over before).
    let quietBatchCreated = () => {};
    const created = new Promise<void>((resolve) => {
      quietBatchCreated = resolve;
    });
    let dialing = 0;
    let everyLineHeld = () => {};
    const linesHeld = new Promise<void>((resolve) => {
      everyLineHeld = resolve;
    });
    const dialer: Dialer = {
      async dial(_request, signal) {
        if (++dialing === concurrency) everyLineHeld();
        const aborted = new Promise<never>((_, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason)),
        );
        await Promise.race([created, aborted]);
        await sleep(30, undefined, { signal });
        return { outcome: 'answered', durationSeconds: 0.03, reason: null };
      },
    };
    await withTwoOrganizations({ concurrency, callMs: 30, dialer }, async (server, noisy, quiet) => {
      const scheduled = await noisy.batch(
        await noisy.workflow([{ id: 'dial', type: 'call' }]),
        await noisy.prospects(200),
        { scheduledAt: new Date(Date.now() + 3_600_000).toISOString() },
      );
      // The campaign's id sorts first, as it may by chance: claimed in id order, it would take every line until done.
      const campaign = 'bat_00000000000000000000000000000000';
      await server.db.prisma
        .$executeRaw`UPDATE "Batch" SET id = ${campaign}, "scheduledAt" = NULL WHERE id = ${scheduled}`;
      await server.db.prisma.$executeRaw`UPDATE "Run" SET "nextAttemptAt" = now() WHERE "batchId" = ${campaign}`;
      server.engine!.poke();
      const quietWorkflow = await quiet.workflow([{ id: 'dial', type: 'call' }]);
      const quietProspects = await quiet.prospects(1);
      // The campaign holds every line (and the runs claimed ahead, in the same claim) before the quiet batch exists.
      await linesHeld;
      const small = await quiet.batch(quietWorkflow, quietProspects);
      const createdAt = new Date();
      quietBatchCreated();
      expect((await batchIn(server.db, small, ['FINISHED', 'FAILED'])).status).toBe('FINISHED');
      const [first] = await attemptsOf(server, small);
      // Every attempt of the campaign, those after the quiet batch's call included.
      expect((await batchIn(server.db, campaign, ['FINISHED', 'FAILED'])).status).toBe('FINISHED');
      const campaignAttempts = await attemptsOf(server, campaign);
      const ahead = campaignAttempts.filter(
        (attempt) => attempt.startedAt >= createdAt && attempt.startedAt < first!.startedAt,
      );
      // In id order the campaign's 200 runs went first; now at most the runs already holding
      // a line or claimed ahead do (two per line), and one line's turn.
      expect(ahead.length).toBeLessThanOrEqual(2 * concurrency + 1);
      expect(campaignAttempts.some((attempt) => attempt.startedAt > first!.startedAt)).toBe(true);
    });
  });

  it('holds an organization to its max_concurrent_calls over the deployment, the other using the remaining lines', async () => {
    await withTwoOrganizations({ concurrency: 4, callMs: 20 }, async (server, noisy, quiet) => {
      const set = await noisy.rest('PATCH', '/org/{org}/settings', { body: { max_concurrent_calls: 1 } });
      expect(set).toMatchObject({ status: 200, body: { max_concurrent_calls: 1 } });
      const capped = await noisy.batch(await noisy.workflow([{ id: 'dial', type: 'call' }]), await noisy.prospects(12));
      const free = await quiet.batch(await quiet.workflow([{ id: 'dial', type: 'call' }]), await quiet.prospects(12));
      for (const batch of [capped, free])
        expect((await batchIn(server.db, batch, ['FINISHED', 'FAILED'])).status).toBe('FINISHED');
      expect(mostAtOnce(await attemptsOf(server, capped))).toBe(1);
      expect(mostAtOnce(await attemptsOf(server, free))).toBeGreaterThan(1);
    });
  });

  it('advances two batches of one organization side by side', async () => {
    await withTwoOrganizations({ concurrency: 2, callMs: 20 }, async (server, noisy) => {
      const workflow = await noisy.workflow([{ id: 'dial', type: 'call' }]);
      // Long enough (50 calls' worth at 2 at once) that the second is created while it runs, on a loaded machine too.
      const first = await noisy.batch(workflow, await noisy.prospects(100));
      await server.engineClaims(2);
      const second = await noisy.batch(
        workflow,
        await noisy.prospects(5, (index) => ({ phone: `+1415999000${index}` })),
      );
      for (const batch of [first, second])
        expect((await batchIn(server.db, batch, ['FINISHED', 'FAILED'])).status).toBe('FINISHED');
      const lastOfSecond = (await attemptsOf(server, second)).at(-1)!;
      const lastOfFirst = (await attemptsOf(server, first)).at(-1)!;
      expect(lastOfSecond.startedAt.getTime()).toBeLessThan(lastOfFirst.startedAt.getTime());
    });
  });
});

describe('organization settings', () => {
  it('are read and changed under both prefixes and in GraphQL; a bad value is a 400 naming it; each organization has its own', async () => {
    await withTwoOrganizations({ concurrency: 1, callMs: 5 }, async (_server, noisy, quiet) => {
      expect(await noisy.rest('GET', '/org/{org}/settings')).toMatchObject({
        status: 200,
        body: { max_concurrent_calls: null },
      });
      expect(await noisy.rest('PATCH', '/api/org/{org}/settings', { body: { max_concurrent_calls: 7 } })).toMatchObject(
        { status: 200, body: { max_concurrent_calls: 7 } },
      );
      expect((await noisy.rest('GET', '/api/org/{org}/settings')).body).toEqual({
        max_concurrent_calls: 7,
        redact_pii: true,
        transcript_language: 'english',
        retention_days: null,
        require_consent: false,
        blackout_dates: [],
        contact_limits: [],
        number_health: null,
      });
      for (const value of [0, -1, 1.5, 'ten', 100_001]) {
        const refused = expectErrorBody(
          await noisy.rest('PATCH', '/org/{org}/settings', { body: { max_concurrent_calls: value } }),
          400,
        );
        expect(refused.error).toEqual([expect.objectContaining({ path: 'max_concurrent_calls' })]);
      }
      expectErrorBody(await noisy.rest('PATCH', '/org/{org}/settings', { body: { unknown: 1 } }), 400);
      // An empty change changes nothing; null clears.
      expect((await noisy.rest('PATCH', '/org/{org}/settings', { body: {} })).body).toEqual({
        max_concurrent_calls: 7,
        redact_pii: true,
        transcript_language: 'english',
        retention_days: null,
        require_consent: false,
        blackout_dates: [],
        contact_limits: [],
        number_health: null,
      });
      expect(await noisy.ok('{ organization { settings { maxConcurrentCalls } } }')).toEqual({
        organization: { settings: { maxConcurrentCalls: 7 } },
      });
      expect((await quiet.rest('GET', '/org/{org}/settings')).body).toMatchObject({ max_concurrent_calls: null });
      // Another organization's id in the path is not the caller's: 404, nothing changed.
      expect(
        (await quiet.rest('PATCH', `/org/${noisy.organizationId}/settings`, { body: { max_concurrent_calls: 1 } }))
          .status,
      ).toBe(404);
      const cleared = await noisy.ok(
        'mutation { updateOrganizationSettings(input: { maxConcurrentCalls: null }) { maxConcurrentCalls } }',
      );
      expect(cleared).toEqual({ updateOrganizationSettings: { maxConcurrentCalls: null } });
    });
  });
});

describe('fair shares of one claim', () => {
  const batch = (id: string, organizationId: string, inProgress: number, room: number) => ({
    id,
    organizationId,
    inProgress,
    room,
  });

  it('fill the least loaded organization first, then share equally, within bounds and rooms', () => {
    const organizations = new Map([
      ['a', { inProgress: 10, bound: null }],
      ['b', { inProgress: 0, bound: null }],
      ['c', { inProgress: 2, bound: 3 }],
    ]);
    const shares = fairShares(
      [batch('a1', 'a', 10, 100), batch('b1', 'b', 0, 100), batch('c1', 'c', 2, 100)],
      organizations,
      12,
    );
    // b is raised to c's 2, c stops at its bound 3, then a and b share the rest from 10 up.
    expect(Object.fromEntries(shares)).toEqual({ b1: 10, c1: 1, a1: 1 });
    expect(Object.fromEntries(fairShares([batch('b1', 'b', 0, 3)], organizations, 12))).toEqual({ b1: 3 });
  });

  it("share an organization's places between its batches, the least advanced first", () => {
    const shares = fairShares([batch('x', 'a', 5, 100), batch('y', 'a', 0, 100), batch('z', 'a', 0, 2)], new Map(), 9);
    expect(Object.fromEntries(shares)).toEqual({ y: 6, z: 2, x: 1 });
  });

  it('turn which of equally loaded organizations is served first', () => {
    const batches = [batch('a1', 'a', 0, 5), batch('b1', 'b', 0, 5)];
    expect([...fairShares(batches, new Map(), 1, 0).keys()]).toEqual(['a1']);
    expect([...fairShares(batches, new Map(), 1, 1).keys()]).toEqual(['b1']);
  });
});

describe("an instance's lines", () => {
  it('go to the waiting run of the organization holding the fewest, a paced one first, else in the order they asked', async () => {
    const lines = new Lines(2);
    const never = new AbortController().signal;
    const granted: string[] = [];
    const ask = (name: string, organizationId: string, paced = false) =>
      lines.take(organizationId, paced, never).then((free) => {
        granted.push(name);
        return free;
      });
    const a1 = await ask('a1', 'a');
    const a2 = await ask('a2', 'a');
    const [a3, a4, b1, c1, b2] = [ask('a3', 'a'), ask('a4', 'a'), ask('b1', 'b'), ask('c1', 'c', true), ask('b2', 'b')];
    // a frees one: c's paced run goes first, though b asked before it.
    a1();
    await c1;
    // a frees its other: a and b hold none, a's run asked first.
    a2();
    await a3;
    // c frees its line: b holds none, a one.
    (await c1)();
    await b1;
    // a frees its line: a holds none, b one.
    (await a3)();
    await a4;
    (await b1)();
    await b2;
    expect(granted).toEqual(['a1', 'a2', 'c1', 'a3', 'b1', 'a4', 'b2']);
  });
});
