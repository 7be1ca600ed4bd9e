// A LiveKit server's API, as far as the gateway uses it, for tests (no LiveKit
// can run here): an HTTP server answering LiveKit's Twirp routes (JSON) with
// messages built from @livekit/protocol. Like a LiveKit server it checks each
// request's token with the SDK's TokenVerifier (signed with the API secret,
// issued by the API key, not expired) and the grants its route needs, and
// refuses with a Twirp error otherwise. It records what it was asked, answers
// calls as the test scripts them (answered, busy, no answer, an error), and
// acts as LiveKit and the agent worker afterwards: the agent may report an
// outcome to the gateway, then LiveKit sends the call's end to the gateway's
// webhook, signed as LiveKit signs webhooks.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AgentDispatch,
  CreateAgentDispatchRequest,
  CreateRoomRequest,
  CreateSIPInboundTrunkRequest,
  CreateSIPOutboundTrunkRequest,
  CreateSIPParticipantRequest,
  DeleteRoomRequest,
  DeleteRoomResponse,
  DeleteSIPTrunkRequest,
  type ListUpdate,
  ParticipantInfo,
  ParticipantInfo_Kind,
  Room,
  type SIPInboundTrunkInfo,
  type SIPOutboundTrunkInfo,
  SIPParticipantInfo,
  SIPTrunkInfo,
  TransferSIPParticipantRequest,
  UpdateSIPInboundTrunkRequest,
  UpdateSIPOutboundTrunkRequest,
  WebhookEvent,
} from '@livekit/protocol';
import { AccessToken, type ClaimGrants, TokenVerifier } from 'livekit-server-sdk';

/** How LiveKit answers one dial (CreateSIPParticipant). */
export type CallScript =
  | {
      kind: 'answered';
      /** LiveKit's account of how long the call lasted (room_finished: the room's lifetime). */
      durationSeconds: number;
      /** The webhook that ends the call; `none`: LiveKit never tells (the call is lost). */
      end?: 'room_finished' | 'participant_left' | 'none';
      /** What the agent worker reports to the gateway before the call ends. */
      agentReports?: string;
    }
  /** The dial fails with this SIP status (486 busy, 480 no answer…). */
  | { kind: 'sip'; status: number; statusName: string }
  /** LiveKit fails without a SIP status. */
  | { kind: 'error'; message: string };

export interface DialedCall {
  request: CreateSIPParticipantRequest;
  /** The dispatch of the agent to the same room. */
  metadata: Record<string, any>;
}

interface Failure {
  status: number;
  code: string;
  msg: string;
}

/** The Twirp code LiveKit answers a failed dial with, by SIP status. */
const twirpOfSip = (status: number): Pick<Failure, 'status' | 'code'> =>
  status === 408
    ? { status: 504, code: 'deadline_exceeded' }
    : status === 404
      ? { status: 404, code: 'not_found' }
      : { status: 503, code: 'unavailable' };

type Grants = ClaimGrants;

const ROUTES: Record<string, (grants: Grants, body: any) => string | null> = {
  'livekit.RoomService/CreateRoom': (grants) => (grants.video?.roomCreate ? null : 'roomCreate'),
  'livekit.RoomService/DeleteRoom': (grants) => (grants.video?.roomCreate ? null : 'roomCreate'),
  'livekit.AgentDispatchService/CreateDispatch': (grants, body) =>
    grants.video?.roomAdmin && grants.video.room === body.room ? null : `roomAdmin on room ${body.room}`,
  'livekit.SIP/CreateSIPParticipant': (grants) => (grants.sip?.call ? null : 'sip.call'),
  'livekit.SIP/TransferSIPParticipant': (grants, body) =>
    grants.sip?.call && grants.video?.roomAdmin && grants.video.room === body.roomName
      ? null
      : `sip.call and roomAdmin on room ${body.roomName}`,
  'livekit.SIP/CreateSIPOutboundTrunk': (grants) => (grants.sip?.admin ? null : 'sip.admin'),
  'livekit.SIP/CreateSIPInboundTrunk': (grants) => (grants.sip?.admin ? null : 'sip.admin'),
  'livekit.SIP/UpdateSIPOutboundTrunk': (grants) => (grants.sip?.admin ? null : 'sip.admin'),
  'livekit.SIP/UpdateSIPInboundTrunk': (grants) => (grants.sip?.admin ? null : 'sip.admin'),
  'livekit.SIP/DeleteSIPTrunk': (grants) => (grants.sip?.admin ? null : 'sip.admin'),
};

const sha256Base64 = (body: string) => createHash('sha256').update(body).digest('base64');

const applyList = (current: string[], update: ListUpdate | undefined) => {
  if (!update) return current;
  const removed = new Set(update.remove);
  return [
    ...current.filter((number) => !removed.has(number)),
    ...update.add.filter((number) => !current.includes(number)),
  ];
};

export class LiveKitDouble {
  readonly apiKey = `APIdouble${randomBytes(3).toString('hex')}`;
  readonly apiSecret = randomBytes(24).toString('base64');
  url = '';
  /** Where LiveKit's webhooks go (the gateway's POST /livekit/webhook). */
  webhookUrl = '';
  /** LiveKit's clock, for the times in webhooks. */
  now: () => Date = () => new Date();
  /** How each dial is answered; `attempt` counts the dials of the same number (1, 2, …). */
  script: (call: DialedCall, attempt: number) => CallScript = () => ({ kind: 'answered', durationSeconds: 1 });
  /** The agent worker reporting an outcome to the gateway (the test does it with an API key). */
  agent: (metadata: Record<string, any>, outcome: string) => Promise<void> = async () => {};

  readonly rooms: CreateRoomRequest[] = [];
  readonly deletedRooms: string[] = [];
  readonly dispatches: CreateAgentDispatchRequest[] = [];
  readonly dials: DialedCall[] = [];
  readonly outboundTrunks = new Map<string, SIPOutboundTrunkInfo>();
  readonly inboundTrunks = new Map<string, SIPInboundTrunkInfo>();
  readonly deletedTrunks: string[] = [];
  /** Requests refused for their token or grants. */
  readonly refused: { route: string; reason: string }[] = [];
  /** Webhooks sent, with the gateway's answer. */
  readonly webhooks: { event: string; room: string; status: number }[] = [];
  /** The most calls in flight at once (dialled, and neither ended nor hung up). */
  maxInFlight = 0;

  private server: http.Server | null = null;
  private readonly failures = new Map<string, Failure[]>();
  private readonly gates = new Map<string, { count: number; waiting: (() => void)[] }>();
  private readonly roomCreated = new Map<string, Date>();
  private readonly dialsPerNumber = new Map<string, number>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly callsInFlight = new Set<string>();
  /** The SIP transfers asked for (TransferSIPParticipant), in order. */
  readonly transfers: TransferSIPParticipantRequest[] = [];
  private sequence = 0;
  private dialWaiters: { count: number; resolve: (dials: DialedCall[]) => void }[] = [];

  async start() {
    this.server = http.createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The gateway's DIALER=livekit settings for this double. */
  settings(agentName = 'outbound-caller') {
    return { url: this.url, apiKey: this.apiKey, apiSecret: this.apiSecret, agentName, ringingTimeoutSeconds: 25 };
  }

  /** As `settings`, in the environment variables of a gateway process. */
  env(agentName = 'outbound-caller'): Record<string, string> {
    return {
      DIALER: 'livekit',
      LIVEKIT_URL: this.url,
      LIVEKIT_API_KEY: this.apiKey,
      LIVEKIT_API_SECRET: this.apiSecret,
      LIVEKIT_AGENT_NAME: agentName,
    };
  }

  /** Waits for the calls' scripted ends, then stops. */
  async close() {
    await this.settled();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Resolves once every scripted call end (agent report, webhook) has been delivered. */
  async settled() {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** The next request to `route` (e.g. `livekit.SIP/CreateSIPOutboundTrunk`) fails so. */
  failNext(route: string, failure: Failure) {
    this.failures.set(route, [...(this.failures.get(route) ?? []), failure]);
  }

  /** Calls dialled and neither ended nor hung up. */
  get inFlight() {
    return this.callsInFlight.size;
  }

  /** Requests to `route` are answered only once `count` of them have arrived (concurrent requests, made to overlap). */
  gate(route: string, count: number) {
    this.gates.set(route, { count, waiting: [] });
  }

  /** Resolves with the dials once `count` calls have been dialled (at once if they have). */
  dialled(count: number): Promise<DialedCall[]> {
    if (this.dials.length >= count) return Promise.resolve(this.dials.slice(0, count));
    return new Promise((resolve) => this.dialWaiters.push({ count, resolve }));
  }

  /**
   * The call in `room` ends as a call left in flight (`end: 'none'`) ends when
   * the agent worker deletes its room: LiveKit sends room_finished, the room
   * `durationSeconds` old.
   */
  async hangUp(room: string, durationSeconds: number) {
    this.deletedRooms.push(room);
    this.callsInFlight.delete(room);
    return this.sendWebhook(this.roomFinished(room, durationSeconds));
  }

  /** The metadata of the agent dispatched to `room`. */
  metadataOf(room: string): Record<string, any> {
    const dispatch = this.dispatches.find((candidate) => candidate.room === room);
    return dispatch ? JSON.parse(dispatch.metadata) : {};
  }

  /** Posts a webhook to the gateway, signed as LiveKit signs them, or with `secret` (a forgery) / `body` (tampered). */
  async sendWebhook(
    event: WebhookEvent,
    forge: { secret?: string; apiKey?: string; body?: string; noSignature?: boolean } = {},
  ) {
    const signed = event.toJsonString();
    const token = new AccessToken(forge.apiKey ?? this.apiKey, forge.secret ?? this.apiSecret, { ttl: '5m' });
    token.sha256 = sha256Base64(signed);
    const response = await fetch(this.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/webhook+json',
        ...(forge.noSignature ? {} : { authorization: await token.toJwt() }),
      },
      body: forge.body ?? signed,
    });
    this.webhooks.push({ event: event.event, room: event.room?.name ?? '', status: response.status });
    return response;
  }

  /** A room_finished event for a room, `durationSeconds` after its creation (LiveKit's clock). */
  roomFinished(room: string, durationSeconds: number) {
    const created = this.roomCreated.get(room) ?? this.now();
    const createdSeconds = BigInt(Math.floor(created.getTime() / 1000));
    return new WebhookEvent({
      id: `EV_${++this.sequence}`,
      event: 'room_finished',
      room: new Room({
        sid: `RM_${room}`,
        name: room,
        creationTime: createdSeconds,
        creationTimeMs: createdSeconds * 1000n,
      }),
      createdAt: createdSeconds + BigInt(durationSeconds),
    });
  }

  /** A participant_left event for a room's SIP participant, `durationSeconds` after it joined. */
  sipParticipantLeft(room: string, identity: string, durationSeconds: number) {
    const joined = BigInt(Math.floor((this.roomCreated.get(room) ?? this.now()).getTime() / 1000));
    return new WebhookEvent({
      id: `EV_${++this.sequence}`,
      event: 'participant_left',
      room: new Room({ sid: `RM_${room}`, name: room }),
      participant: new ParticipantInfo({
        identity,
        kind: ParticipantInfo_Kind.SIP,
        joinedAt: joined,
        joinedAtMs: joined * 1000n,
      }),
      createdAt: joined + BigInt(durationSeconds),
    });
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const route = (request.url ?? '').replace(/^\/twirp\//, '');
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const fail = (failure: Failure, meta?: Record<string, string>) =>
      send(failure.status, { code: failure.code, msg: failure.msg, ...(meta ? { meta } : {}) });
    const check = ROUTES[route];
    if (request.method !== 'POST' || !check)
      return fail({ status: 404, code: 'bad_route', msg: `no route ${request.url}` });
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    const header = request.headers.authorization ?? '';
    let grants: Grants;
    try {
      grants = await new TokenVerifier(this.apiKey, this.apiSecret).verify(header.replace(/^Bearer /, ''));
    } catch (error) {
      this.refused.push({ route, reason: (error as Error).message });
      return fail({ status: 401, code: 'unauthenticated', msg: 'invalid token' });
    }
    const missing = check(grants, body);
    if (missing) {
      this.refused.push({ route, reason: `missing grant ${missing}` });
      return fail({ status: 403, code: 'permission_denied', msg: `permissions denied: ${missing}` });
    }
    await this.passGate(route);
    const scripted = this.failures.get(route)?.shift();
    if (scripted) return fail(scripted);
    const answer = await this.answer(route, body);
    if ('failure' in answer) return fail(answer.failure, answer.meta);
    send(200, answer.json);
  }

  private async passGate(route: string) {
    const gate = this.gates.get(route);
    if (!gate) return;
    await new Promise<void>((resolve) => {
      gate.waiting.push(resolve);
      if (gate.waiting.length >= gate.count) {
        this.gates.delete(route);
        for (const release of gate.waiting) release();
      }
    });
  }

  private async answer(
    route: string,
    body: unknown,
  ): Promise<{ json: unknown } | { failure: Failure; meta?: Record<string, string> }> {
    switch (route) {
      case 'livekit.RoomService/CreateRoom': {
        const created = CreateRoomRequest.fromJson(body as never);
        this.rooms.push(created);
        this.roomCreated.set(created.name, this.now());
        return {
          json: new Room({
            sid: `RM_${created.name}`,
            name: created.name,
            emptyTimeout: created.emptyTimeout,
          }).toJson(),
        };
      }
      case 'livekit.RoomService/DeleteRoom': {
        const { room } = DeleteRoomRequest.fromJson(body as never);
        this.deletedRooms.push(room);
        this.callsInFlight.delete(room);
        return { json: new DeleteRoomResponse().toJson() };
      }
      case 'livekit.AgentDispatchService/CreateDispatch': {
        const dispatch = CreateAgentDispatchRequest.fromJson(body as never);
        this.dispatches.push(dispatch);
        return {
          json: new AgentDispatch({
            id: `AD_${++this.sequence}`,
            agentName: dispatch.agentName,
            room: dispatch.room,
            metadata: dispatch.metadata,
          }).toJson(),
        };
      }
      case 'livekit.SIP/CreateSIPOutboundTrunk': {
        const trunk = CreateSIPOutboundTrunkRequest.fromJson(body as never).trunk!;
        trunk.sipTrunkId = `ST_out${++this.sequence}`;
        this.outboundTrunks.set(trunk.sipTrunkId, trunk);
        return { json: trunk.toJson() };
      }
      case 'livekit.SIP/CreateSIPInboundTrunk': {
        const trunk = CreateSIPInboundTrunkRequest.fromJson(body as never).trunk!;
        trunk.sipTrunkId = `ST_in${++this.sequence}`;
        this.inboundTrunks.set(trunk.sipTrunkId, trunk);
        return { json: trunk.toJson() };
      }
      case 'livekit.SIP/UpdateSIPOutboundTrunk': {
        const update = UpdateSIPOutboundTrunkRequest.fromJson(body as never);
        const trunk = this.outboundTrunks.get(update.sipTrunkId);
        if (!trunk || update.action.case !== 'update')
          return { failure: { status: 404, code: 'not_found', msg: 'no such trunk' } };
        trunk.numbers = applyList(trunk.numbers, update.action.value.numbers);
        return { json: trunk.toJson() };
      }
      case 'livekit.SIP/UpdateSIPInboundTrunk': {
        const update = UpdateSIPInboundTrunkRequest.fromJson(body as never);
        const trunk = this.inboundTrunks.get(update.sipTrunkId);
        if (!trunk || update.action.case !== 'update')
          return { failure: { status: 404, code: 'not_found', msg: 'no such trunk' } };
        trunk.numbers = applyList(trunk.numbers, update.action.value.numbers);
        return { json: trunk.toJson() };
      }
      case 'livekit.SIP/TransferSIPParticipant': {
        const transfer = TransferSIPParticipantRequest.fromJson(body as never);
        // LiveKit refers the call only while its participant is in the room.
        if (!this.callsInFlight.has(transfer.roomName))
          return { failure: { status: 412, code: 'failed_precondition', msg: 'participant not in room' } };
        this.transfers.push(transfer);
        return { json: {} };
      }
      case 'livekit.SIP/DeleteSIPTrunk': {
        const { sipTrunkId } = DeleteSIPTrunkRequest.fromJson(body as never);
        if (!this.outboundTrunks.delete(sipTrunkId) && !this.inboundTrunks.delete(sipTrunkId)) {
          return { failure: { status: 404, code: 'not_found', msg: 'no such trunk' } };
        }
        this.deletedTrunks.push(sipTrunkId);
        return { json: new SIPTrunkInfo({ sipTrunkId }).toJson() };
      }
      default:
        return this.dial(CreateSIPParticipantRequest.fromJson(body as never));
    }
  }

  private async dial(request: CreateSIPParticipantRequest) {
    const call = { request, metadata: this.metadataOf(request.roomName) };
    this.dials.push(call);
    for (const waiter of this.dialWaiters.filter(({ count }) => this.dials.length >= count)) {
      this.dialWaiters.splice(this.dialWaiters.indexOf(waiter), 1);
      waiter.resolve(this.dials.slice(0, waiter.count));
    }
    const attempt = (this.dialsPerNumber.get(request.sipCallTo) ?? 0) + 1;
    this.dialsPerNumber.set(request.sipCallTo, attempt);
    this.callsInFlight.add(request.roomName);
    this.maxInFlight = Math.max(this.maxInFlight, this.callsInFlight.size);
    const script = this.script(call, attempt);
    await sleep(20); // ringing
    if (script.kind !== 'answered') {
      this.callsInFlight.delete(request.roomName);
      if (script.kind === 'error') return { failure: { status: 500, code: 'internal', msg: script.message } };
      const failure = {
        ...twirpOfSip(script.status),
        msg: `INVITE failed: sip status: ${script.status} (${script.statusName})`,
      };
      return { failure, meta: { sip_status_code: String(script.status), sip_status: script.statusName } };
    }
    // Answered: the call goes on after the answer; the agent may report, then LiveKit tells its end.
    const ending = (async () => {
      await sleep(30);
      if (script.agentReports) await this.agent(call.metadata, script.agentReports);
      if (script.end === 'none') return;
      const event =
        script.end === 'participant_left'
          ? this.sipParticipantLeft(request.roomName, request.participantIdentity, script.durationSeconds)
          : this.roomFinished(request.roomName, script.durationSeconds);
      this.callsInFlight.delete(request.roomName);
      await this.sendWebhook(event);
    })();
    this.pending.add(ending);
    void ending.finally(() => this.pending.delete(ending));
    return {
      json: new SIPParticipantInfo({
        participantId: `PA_${++this.sequence}`,
        participantIdentity: request.participantIdentity,
        roomName: request.roomName,
        sipCallId: `SCL_${this.sequence}`,
      }).toJson(),
    };
  }
}
