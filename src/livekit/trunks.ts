// SIP trunks in LiveKit (src/domain/telephony.ts's TrunkDirectory): POST /sip-trunks'
// pair is created there as an outbound trunk (the address LiveKit dials
// through, the numbers it may call from, the credentials) and an inbound
// trunk (the numbers it answers, the credentials callers present); POST /phone-numbers and /phone-numbers/bulk
// add numbers to both. Any failure of LiveKit is a BAD_GATEWAY (502).
import { ListUpdate, SIPTransport } from '@livekit/protocol';
import type { SipClient } from 'livekit-server-sdk';
import { badGateway } from '../domain/errors.ts';
import type { RemoteTrunk, TrunkDirectory } from '../domain/telephony.ts';

/** What LiveKit's answer says, for the 502's message. */
const described = (error: unknown) => {
  const { message, status } = error as { message?: string; status?: number };
  return status ? `${status} ${message ?? ''}`.trim() : (message ?? String(error));
};

async function upstream<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw badGateway(`LiveKit could not ${what}: ${described(error)}`);
  }
}

export function liveKitTrunks(sip: SipClient): TrunkDirectory {
  const update = (trunk: RemoteTrunk, numbers: ListUpdate): Promise<unknown> =>
    trunk.direction === 'outbound'
      ? sip.updateSipOutboundTrunkFields(trunk.id, { numbers })
      : sip.updateSipInboundTrunkFields(trunk.id, { numbers });
  return {
    async createPair({ name, address, numbers, authUsername, authPassword }) {
      const credentials = { authUsername: authUsername ?? undefined, authPassword: authPassword ?? undefined };
      const outbound = await upstream('create the outbound trunk', () =>
        sip.createSipOutboundTrunk(name, address, numbers, {
          transport: SIPTransport.SIP_TRANSPORT_AUTO,
          ...credentials,
        }),
      );
      try {
        const inbound = await upstream('create the inbound trunk', () =>
          sip.createSipInboundTrunk(name, numbers, credentials),
        );
        return { inboundId: inbound.sipTrunkId, outboundId: outbound.sipTrunkId };
      } catch (error) {
        // Half a pair is no pair: the outbound trunk goes too.
        await sip.deleteSipTrunk(outbound.sipTrunkId).catch(() => {});
        throw error;
      }
    },
    async deleteTrunks(ids) {
      await upstream('delete trunks', () => Promise.all(ids.map((id) => sip.deleteSipTrunk(id))));
    },
    async addNumbers(trunks, numbers) {
      const done: RemoteTrunk[] = [];
      try {
        for (const trunk of trunks) {
          await upstream(`add the numbers to trunk ${trunk.id}`, () => update(trunk, new ListUpdate({ add: numbers })));
          done.push(trunk);
        }
      } catch (error) {
        // All trunks of the pair or none: those that took the numbers give them back.
        await Promise.allSettled(done.map((trunk) => update(trunk, new ListUpdate({ remove: numbers }))));
        throw error;
      }
    },
    async removeNumbers(trunks, numbers) {
      await upstream('remove the numbers from the trunks', () =>
        Promise.all(trunks.map((trunk) => update(trunk, new ListUpdate({ remove: numbers })))),
      );
    },
  };
}
