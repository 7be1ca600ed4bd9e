// The outbox survives the process: a server killed (SIGKILL, no chance to
// send or hand anything back) right after it committed a batch status change
// leaves the event in the database, and the next instance delivers it, with
// the same webhook-id, whether the first had sent it (unanswered) or not.
import { describe, expect, it } from 'vitest';
import { eventually } from './support/flows.ts';
import { freePort, orgRest, runCli, startServerProcess } from './support/processes.ts';
import { createTestStorage } from './support/storage.ts';
import { startReceiver } from './support/webhook-receiver.ts';

const webhookEnv = { WEBHOOK_ALLOW_HTTP: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_TIMEOUT_MS: '1000' };

describe('a server killed right after committing a batch status change', () => {
  it('has its event delivered by the next instance', async () => {
    const storage = await createTestStorage();
    const receiver = await startReceiver();
    try {
      const org = JSON.parse((await runCli(['orgs', 'create', '--name', 'Crash'], storage.env)).stdout);
      const call = (port: number, method: string, path: string, body?: unknown) =>
        orgRest(port, org)(method, path, body);

      // While the first instance lives, the receiver never answers: nothing it sends is delivered.
      let firstAlive = true;
      receiver.answer = () => (firstAlive ? 'hang' : 204);
      const firstPort = await freePort();
      const first = await startServerProcess({ ...storage.env, ...webhookEnv }, firstPort);
      const agent = (await call(firstPort, 'POST', '/agents', { name: 'Caller' })).body;
      const workflow = (
        await call(firstPort, 'POST', '/workflows', {
          name: 'Crash',
          definition: { steps: [{ id: 'dial', type: 'call', agent_id: agent.id }] },
        })
      ).body;
      const prospects = (await call(firstPort, 'POST', '/prospects', { first_name: 'Ada', phone: '+14155550100' }))
        .body;
      const batch = (
        await call(firstPort, 'POST', `/workflows/${workflow.id}/batches`, {
          prospect_ids: [prospects.created[0].id],
          scheduled_at: '2099-01-01T00:00:00Z',
        })
      ).body;
      const endpoint = (
        await call(firstPort, 'POST', '/webhook-endpoints', { url: receiver.url, events: ['batch.status_changed'] })
      ).body;

      const paused = await call(firstPort, 'PATCH', `/batches/${batch.id}`, { status: 'PAUSED' });
      expect(paused.body.status).toBe('PAUSED');
      await first.stop('SIGKILL');
      firstAlive = false;
      const sentByFirst = receiver.received.length;

      const secondPort = await freePort();
      const second = await startServerProcess({ ...storage.env, ...webhookEnv }, secondPort);
      try {
        const [delivered] = await eventually(
          async () => {
            const verified = receiver.verified(endpoint.secret).slice(sentByFirst);
            return verified.length > 0 ? verified : undefined;
          },
          30_000,
          'the event to be delivered by the second instance',
        );
        expect(delivered!.payload).toMatchObject({
          type: 'batch.status_changed',
          data: { id: batch.id, status: 'PAUSED' },
        });
        // At least once, never as another event: every request carried the event's id.
        expect(new Set(receiver.received.map((request) => request.headers['webhook-id']))).toEqual(
          new Set([delivered!.id]),
        );
        const deliveries = await eventually(async () => {
          const page = (await call(secondPort, 'GET', `/webhook-endpoints/${endpoint.id}/deliveries`)).body;
          return page.data[0]?.status === 'delivered' ? page.data : undefined;
        });
        expect(deliveries).toHaveLength(1);
        expect(deliveries[0]).toMatchObject({ event_id: delivered!.id, last_response_code: 204 });
      } finally {
        await second.stop();
      }
    } finally {
      await receiver.close();
      await storage.dispose();
    }
  });
});
