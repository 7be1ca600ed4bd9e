// A worker killed mid-call (SIGKILL, no chance to hand anything back): its run
// stays IN_PROGRESS under a lease nobody renews. The next instance takes it
// back once the lease runs out: the call in flight is an attempt ended
// `failed` / `lost`, and the run is tried again only after the batch's retry
// delay, never at once.
import { describe, expect, it } from 'vitest';
import { eventually } from './support/flows.ts';
import { freePort, orgRest, runCli, startServerProcess } from './support/processes.ts';
import { createTestStorage } from './support/storage.ts';

describe('a worker killed mid-run', () => {
  it("has its call recorded lost by the next instance, and retried after the batch's delay", async () => {
    const storage = await createTestStorage();
    try {
      const org = JSON.parse((await runCli(['orgs', 'create', '--name', 'Crash'], storage.env)).stdout);
      const call = async (port: number, method: string, path: string, body?: unknown) =>
        (await orgRest(port, org)(method, path, body)).body;

      // The first worker's calls never end by themselves.
      const firstPort = await freePort();
      const first = await startServerProcess(
        { ...storage.env, SIMULATED_CALL_MS: '600000', RUN_LEASE_MS: '2000', SIMULATED_CALL_OUTCOMES: 'answered=1' },
        firstPort,
      );
      const agent = await call(firstPort, 'POST', '/agents', { name: 'Caller' });
      const steps = [{ id: 'dial', type: 'call', agent_id: agent.id }];
      const workflow = await call(firstPort, 'POST', '/workflows', { name: 'Crash', definition: { steps } });
      const prospects = await call(firstPort, 'POST', '/prospects', { first_name: 'Ada', phone: '+14155550100' });
      const batch = await call(firstPort, 'POST', `/workflows/${workflow.id}/batches`, {
        prospect_ids: [prospects.created[0].id],
        retry: { max_attempts: 2, on: ['failed'], delay_seconds: 3 },
      });
      // Killed once its call is placed: the attempt is written open before the call starts.
      await eventually(async () => {
        const runs = await call(firstPort, 'GET', `/workflows/${workflow.id}/runs?status=IN_PROGRESS`);
        const run = runs.data.length === 1 ? await call(firstPort, 'GET', `/runs/${runs.data[0].id}`) : null;
        return run?.call_attempts.length === 1 ? true : undefined;
      });
      await first.stop('SIGKILL');

      const secondPort = await freePort();
      const second = await startServerProcess(
        { ...storage.env, SIMULATED_CALL_MS: '50', RUN_LEASE_MS: '2000', SIMULATED_CALL_OUTCOMES: 'answered=1' },
        secondPort,
      );
      try {
        const finished = await eventually(
          async () => {
            const current = await call(secondPort, 'GET', `/batches/${batch.id}`);
            return current.status === 'FINISHED' ? current : undefined;
          },
          30_000,
          'the batch to finish',
        );
        expect(finished.stats).toMatchObject({ finished_count: 1, in_progress_count: 0, total_count: 1 });
        const runs = await call(secondPort, 'GET', `/workflows/${workflow.id}/runs`);
        const run = await call(secondPort, 'GET', `/runs/${runs.data[0].id}`);
        expect(run).toMatchObject({
          status: 'FINISHED',
          current_step_id: 'dial',
          attempts: 2,
          last_outcome: 'answered',
        });
        const [lost, retried] = run.call_attempts;
        expect([lost.outcome, lost.reason, retried.outcome]).toEqual(['failed', 'lost', 'answered']);
        // Not redialled when the lease was taken back: only after the retry delay.
        expect(Date.parse(retried.started_at) - Date.parse(lost.ended_at)).toBeGreaterThanOrEqual(3000);
      } finally {
        await second.stop();
      }
    } finally {
      await storage.dispose();
    }
  });
});
