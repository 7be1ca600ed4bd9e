// A worker killed mid-run (SIGKILL, no chance to hand anything back): its run
// stays IN_PROGRESS under a lease nobody renews, and the next instance takes
// it back once the lease runs out and runs it to the end.
import { describe, expect, it } from 'vitest';
import { eventually } from './support/flows.ts';
import { freePort, runCli, startServerProcess } from './support/processes.ts';
import { createTestStorage } from './support/storage.ts';

describe('a worker killed mid-run', () => {
  it('has its run recovered by the next instance', async () => {
    const storage = await createTestStorage();
    try {
      const org = JSON.parse((await runCli(['orgs', 'create', '--name', 'Crash'], storage.env)).stdout);
      const call = async (port: number, method: string, path: string, body?: unknown) => {
        const response = await fetch(`http://127.0.0.1:${port}/org/${org.organization_id}${path}`, {
          method,
          headers: { 'x-api-key': org.api_key, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        return response.json();
      };

      // The first worker's calls never end by themselves.
      const firstPort = await freePort();
      const first = await startServerProcess({ ...storage.env, SIMULATED_CALL_MS: '600000', RUN_LEASE_MS: '2000', SIMULATED_CALL_FAILURE_RATE: '0' }, firstPort);
      const workflow = await call(firstPort, 'POST', '/workflows', { name: 'Crash', definition: { steps: [{ id: 'dial', type: 'call' }] } });
      const prospects = await call(firstPort, 'POST', '/prospects', { first_name: 'Ada' });
      const batch = await call(firstPort, 'POST', `/workflows/${workflow.id}/batches`, { prospect_ids: [prospects.created[0].id] });
      await eventually(async () => {
        const runs = await call(firstPort, 'GET', `/workflows/${workflow.id}/runs?status=IN_PROGRESS`);
        return runs.data.length === 1 ? true : undefined;
      });
      await first.stop('SIGKILL');

      const secondPort = await freePort();
      const second = await startServerProcess({ ...storage.env, SIMULATED_CALL_MS: '50', RUN_LEASE_MS: '2000', SIMULATED_CALL_FAILURE_RATE: '0' }, secondPort);
      try {
        const finished = await eventually(async () => {
          const current = await call(secondPort, 'GET', `/batches/${batch.id}`);
          return current.status === 'FINISHED' ? current : undefined;
        }, 30_000, 'the batch to finish');
        expect(finished.stats).toMatchObject({ finished_count: 1, in_progress_count: 0, total_count: 1 });
        const runs = await call(secondPort, 'GET', `/workflows/${workflow.id}/runs`);
        expect(runs.data[0]).toMatchObject({ status: 'FINISHED', current_step_id: 'dial' });
      } finally {
        await second.stop();
      }
    } finally {
      await storage.dispose();
    }
  });
});
