// Local presence through the real server: a call step with `caller_id:
// "local"` calls each prospect from the number of its trunk nearest them
// (same area code, else state or province, else country, else in turn), by
// libphonenumber's numbering plan and geocoding data.
import { describe, expect, it } from 'vitest';
import { batchIn } from './support/batch-checks.ts';
import { flows } from './support/flows.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer } from './support/server.ts';

const MANHATTAN = '+12125550001'; // area code 212, New York
const SYRACUSE = '+13155550002'; // 315, New York
const TORONTO = '+14165550003'; // 416, Ontario (Canada)
const MOUNTAIN_VIEW = '+16505550004'; // 650, California

describe('caller_id "local"', () => {
  it('calls from the same area code, else the same state, else the same country, else in turn', {
    timeout: 120_000,
  }, async () => {
    const server = await startTestServer({ engine: { callMs: 5 } });
    try {
      const { organizationId, apiKey } = await server.createOrganization();
      const api = flows(server, apiKey);
      const rest = restClient(server, organizationId, apiKey);
      const trunks = await rest('POST', '/org/{org}/sip-trunks', {
        body: {
          name: 'Local',
          address: 'sip.example.com',
          provider: 'twilio',
          phone_numbers: [MANHATTAN, SYRACUSE, TORONTO, MOUNTAIN_VIEW],
        },
      });
      expect(trunks.status).toBe(201);
      const trunkId = trunks.body.outbound_trunk.id as string;
      // caller_id "local" chooses among a trunk's numbers: without one, or with a from_number, it is refused.
      for (const step of [{ caller_id: 'local' }, { caller_id: 'local', trunk_id: trunkId, from_number: MANHATTAN }]) {
        const agentId = await api.agent();
        const refused = await rest('POST', '/org/{org}/workflows', {
          body: { name: 'x', definition: { steps: [{ id: 'dial', type: 'call', agent_id: agentId, ...step }] } },
        });
        expect(JSON.stringify(expectErrorBody(refused, 400).error)).toContain('caller_id');
      }
      const workflowId = await api.workflow([{ id: 'dial', type: 'call', trunk_id: trunkId, caller_id: 'local' }]);
      const callees = {
        manhattan: '+12125559999', // same area code: 212
        albany: '+15185559999', // 518: another New York area code, so a New York number
        sanFrancisco: '+14155559999', // 415: California, so 650
        ottawa: '+16135559999', // 613: Ontario, so Toronto's
        miami: '+13055559999', // 305: Florida, none there: a US number
        berlin: '+4930123456', // no German number: any, in turn
        munich: '+4989123456',
      };
      const prospects = await api.prospects(Object.keys(callees).length, (index) => ({
        phone: Object.values(callees)[index],
      }));
      const batchId = await api.batch(workflowId, prospects);
      expect((await batchIn(server.db, batchId, ['FINISHED', 'FAILED'])).status).toBe('FINISHED');
      const attempts = await server.db.prisma.runAttempt.findMany({ where: { batchId } });
      const from = (callee: string) => attempts.find((attempt) => attempt.toNumber === callee)?.fromNumber;
      expect(from(callees.manhattan)).toBe(MANHATTAN);
      expect([MANHATTAN, SYRACUSE]).toContain(from(callees.albany));
      expect(from(callees.sanFrancisco)).toBe(MOUNTAIN_VIEW);
      expect(from(callees.ottawa)).toBe(TORONTO);
      expect([MANHATTAN, SYRACUSE, MOUNTAIN_VIEW]).toContain(from(callees.miami));
      const abroad = [from(callees.berlin), from(callees.munich)];
      for (const number of abroad) expect([MANHATTAN, SYRACUSE, TORONTO, MOUNTAIN_VIEW]).toContain(number);
      expect(abroad[0]).not.toBe(abroad[1]);
    } finally {
      await server.close();
    }
  });
});
