// LiveKit, as DIALER=livekit uses it: the SDK's clients for the project in
// LIVEKIT_URL (each request signed with LIVEKIT_API_KEY/SECRET), the trunks
// kept there, the calls' records, the dialer, and the receiver
// that checks LiveKit's webhooks.
import { AgentDispatchClient, RoomServiceClient, SipClient, WebhookReceiver } from 'livekit-server-sdk';
import type { Clock } from '../clock.ts';
import type { LiveKitSettings } from '../config.ts';
import type { CallTransferer } from '../domain/call-transfers.ts';
import type { TrunkDirectory } from '../domain/telephony.ts';
import type { Dialer } from '../engine/dialer.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { LiveKitCalls } from './calls.ts';
import { liveKitDialer } from './livekit-dialer.ts';
import { liveKitTransferer } from './transfers.ts';
import { liveKitTrunks } from './trunks.ts';

export class LiveKit {
  readonly rooms: RoomServiceClient;
  readonly dispatches: AgentDispatchClient;
  readonly sip: SipClient;
  /** Checks a webhook's signature (a JWT signed with the API secret, carrying the body's SHA-256). */
  readonly webhooks: WebhookReceiver;
  readonly trunks: TrunkDirectory;
  readonly calls: LiveKitCalls;
  /** Hands calls in flight to a person (POST …/transfer). */
  readonly transfers: CallTransferer;

  constructor(
    readonly settings: LiveKitSettings,
    prisma: PrismaClient,
  ) {
    // No region failover: it replays a failed request elsewhere, and a replayed dial calls someone twice.
    const options = { failover: false };
    this.rooms = new RoomServiceClient(settings.url, settings.apiKey, settings.apiSecret, options);
    this.dispatches = new AgentDispatchClient(settings.url, settings.apiKey, settings.apiSecret, options);
    this.sip = new SipClient(settings.url, settings.apiKey, settings.apiSecret, options);
    this.webhooks = new WebhookReceiver(settings.apiKey, settings.apiSecret);
    this.trunks = liveKitTrunks(this.sip);
    this.calls = new LiveKitCalls(prisma);
    this.transfers = liveKitTransferer(this.sip);
  }

  /** The dialer of a run engine that reads `clock`. */
  dialer(clock: Clock): Dialer {
    return liveKitDialer({
      rooms: this.rooms,
      dispatches: this.dispatches,
      sip: this.sip,
      calls: this.calls,
      clock,
      agentName: this.settings.agentName,
      ringingTimeoutSeconds: this.settings.ringingTimeoutSeconds,
    });
  }

  close() {
    this.calls.close();
  }
}
