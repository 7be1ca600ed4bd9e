// The agent worker: registers with LiveKit as LIVEKIT_AGENT_NAME, and for each
// job the gateway's LiveKit dialer dispatches (src/livekit/livekit-dialer.ts in
// the gateway) reads the dispatch's metadata, fetches the agent through the
// gateway, builds the session from its ten configurations, logs once the
// members no plugin honours, and conducts the call until it ends (src/call.ts:
// everything but LiveKit's room and session, which are plugged in here).
//
// `tsx src/main.ts start` (production), `dev` (development), `download-files`
// (the models the plugins keep on disk), as LiveKit Agents' CLI reads them.

import { fileURLToPath } from 'node:url';
import { AMD, cli, defineAgent, type JobContext, log, ServerOptions, voice } from '@livekit/agents';
import { AgentCall } from './call.ts';
import { readConfig } from './config.ts';
import { CallJournals } from './journal.ts';
import { modelCompletion } from './model-completion.ts';

const config = readConfig(process.env);
const journals = new CallJournals(config.stateDir);

async function call(ctx: JobContext) {
  const logger = log().child({ job: ctx.job.id });
  // The room's creation (LiveKit's), the same for a worker that takes the job again after a restart.
  const startedAt = Number(ctx.job.room?.creationTimeMs ?? 0n) || Date.now();
  const agentCall = await AgentCall.open(ctx.job.metadata, startedAt, {
    gateway: config.gateway,
    providers: config.providers,
    journals,
    logger,
    analysisModel: (setup) => modelCompletion(setup.session.llm),
  });
  if (!agentCall) {
    await ctx.deleteRoom();
    return;
  }
  const { setup } = agentCall;

  await ctx.connect();
  const session = new voice.AgentSession(setup.session);
  await session.start({
    agent: new voice.Agent({ instructions: setup.instructions, tools: agentCall.tools }),
    room: ctx.room,
  });
  ctx.addShutdownCallback(() => agentCall.end());
  session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
    if (item.type === 'message') void agentCall.heard(item.role, item.textContent, item.createdAt);
  });
  session.on(voice.AgentSessionEventTypes.UserInputTranscribed, () => agentCall.callerSpoke());
  session.on(voice.AgentSessionEventTypes.UserStateChanged, (event) => {
    if (event.newState === 'away' && setup.session.userAwayTimeout !== undefined) void agentCall.callerAway();
  });
  if (setup.background) {
    await new voice.BackgroundAudioPlayer(setup.background).start({ room: ctx.room, agentSession: session });
  }
  agentCall.begin(session, async () => {
    await ctx.deleteRoom();
  });

  // A voice mail: reported to the gateway before the agent leaves its message and hangs up.
  const detection = await new AMD(session, { llm: setup.session.llm }).execute();
  await agentCall.detected(detection.category);
}

export default defineAgent({ entry: call });

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  cli.runApp(
    new ServerOptions({
      agent: fileURLToPath(import.meta.url),
      agentName: config.agentName,
      wsURL: config.providers.livekit.url,
      apiKey: config.providers.livekit.apiKey,
      apiSecret: config.providers.livekit.apiSecret,
    }),
  );
}
