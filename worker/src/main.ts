// The agent worker: registers with LiveKit as LIVEKIT_AGENT_NAME, and for each
// job the gateway's LiveKit dialer dispatches (src/livekit/livekit-dialer.ts in
// the gateway) reads the dispatch's metadata, fetches the agent through the
// gateway, builds the session from its ten configurations, logs once the
// members no plugin honours, and conducts the call until it ends.
//
// `tsx src/main.ts start` (production), `dev` (development), `download-files`
// (the models the plugins keep on disk), as LiveKit Agents' CLI reads them.

import { fileURLToPath } from 'node:url';
import { AMD, AMDCategory, cli, defineAgent, type JobContext, llm, log, ServerOptions, voice } from '@livekit/agents';
import { z } from 'zod';
import { CallRecorder } from './call-record.ts';
import { CallConductor } from './conductor.ts';
import { readConfig } from './config.ts';
import { parseDispatch } from './dispatch.ts';
import { GatewayClient } from './gateway.ts';
import { buildCall, UnusableAgentError } from './mapping/index.ts';
import { GatewayCallReports } from './reports.ts';

const config = readConfig(process.env);

async function call(ctx: JobContext) {
  const logger = log().child({ job: ctx.job.id });
  const job = parseDispatch(ctx.job.metadata);
  const gateway = new GatewayClient(config.gateway, job.organization_id);
  const reports = new GatewayCallReports(gateway, { run_id: job.run_id, attempt: job.attempt });
  const agent = await gateway.agent(job.agent_id);
  let setup: Awaited<ReturnType<typeof buildCall>>;
  try {
    setup = await buildCall(agent, job, config.providers);
  } catch (error) {
    if (!(error instanceof UnusableAgentError)) throw error;
    logger.error({ run: job.run_id, unhonoured: error.unhonoured }, error.message);
    await reports.outcome('failed');
    await ctx.deleteRoom();
    return;
  }
  // Once per call, each by its name: nothing is dropped silently.
  for (const { member, reason } of setup.unhonoured) {
    logger.warn(
      { run: job.run_id, agent: agent.id, member, reason },
      `agent configuration member not honoured: ${member}`,
    );
  }

  await ctx.connect();
  const recorder = new CallRecorder(reports, Date.now());
  const session = new voice.AgentSession(setup.session);
  const conductor = new CallConductor(setup.script, session, async () => {
    await ctx.deleteRoom();
  });
  const endCall = llm.tool({
    description: 'Ends the call once the conversation is over (the agent says its goodbye first).',
    parameters: z.object({}),
    execute: async () => {
      void conductor.agentEnds();
      return 'The call is ending.';
    },
  });
  await session.start({
    agent: new voice.Agent({ instructions: setup.instructions, tools: { end_call: endCall } }),
    room: ctx.room,
  });
  ctx.addShutdownCallback(async () => {
    conductor.stop();
    await recorder.ended(conductor.agentHungUp ? 'agent' : 'callee');
  });
  session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
    if (item.type === 'message') void recorder.turn(item.role, item.textContent, item.createdAt);
  });
  session.on(voice.AgentSessionEventTypes.UserInputTranscribed, () => conductor.callerSpoke());
  session.on(voice.AgentSessionEventTypes.UserStateChanged, (event) => {
    if (event.newState === 'away' && setup.session.userAwayTimeout !== undefined) void conductor.callerSilent();
  });
  if (setup.background) {
    await new voice.BackgroundAudioPlayer(setup.background).start({ room: ctx.room, agentSession: session });
  }
  conductor.start();

  // A voice mail: reported to the gateway before the agent leaves its message and hangs up.
  const detection = await new AMD(session, { llm: setup.session.llm }).execute();
  await recorder.detected(detection.category, Date.now());
  if (detection.category === AMDCategory.MACHINE_VM || detection.category === AMDCategory.MACHINE_UNAVAILABLE) {
    await reports.outcome('voicemail');
    await conductor.voicemail();
  }
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
