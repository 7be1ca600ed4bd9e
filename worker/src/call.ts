// One call, from the job's metadata to its complete record, apart from
// LiveKit's room and session (src/main.ts plugs those in): the dispatch read,
// the agent and its evaluations fetched through the gateway, the session's
// setup built, the unhonoured members logged once, the call's recorder opened
// (or resumed from its journal after a restart), the tools the model may
// call, the script conducted, and when the call ends who hung up and the
// post-call analysis.
import { type AgentEvaluation, type AnalysisModel, analyseCall } from './analysis.ts';
import { CallRecorder } from './call-record.ts';
import { CallConductor, type ConductedSession, type EndReason, realTimers, type Timers } from './conductor.ts';
import type { Providers } from './config.ts';
import { type CallDispatch, parseDispatch } from './dispatch.ts';
import { GatewayClient, type GatewaySettings, type RetryPolicy } from './gateway.ts';
import type { CallJournals } from './journal.ts';
import { buildCall, type CallSetup, UnusableAgentError } from './mapping/index.ts';
import { GatewayCallReports } from './reports.ts';
import { callTools } from './tools.ts';

/** The worker's logger (LiveKit Agents' pino child) as far as a call uses it. */
export interface CallLogger {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface CallEnvironment {
  gateway: GatewaySettings;
  providers: Providers;
  journals: CallJournals;
  logger: CallLogger;
  /** The post-call analysis's model: by default the agent's own (src/model-completion.ts). */
  analysisModel(setup: CallSetup): AnalysisModel;
  retry?: RetryPolicy;
  timers?: Timers;
  now?: () => number;
}

/** AMD's categories of a machine that takes a message (or none): the agent leaves its voice mail. */
const VOICEMAIL = new Set(['machine-vm', 'machine-unavailable']);

/** Evaluations read per page (E19's largest page). */
const EVALUATIONS_PAGE = 100;

async function evaluationsOf(gateway: GatewayClient, agentId: string): Promise<AgentEvaluation[]> {
  const all: AgentEvaluation[] = [];
  for (let page = 1; ; page++) {
    const { data, meta } = await gateway.evaluations(agentId, page, EVALUATIONS_PAGE);
    all.push(...data);
    if (data.length === 0 || all.length >= meta.total) return all;
  }
}

export class AgentCall {
  private conductor: CallConductor | null = null;
  /** The model's tools (LiveKit Agents' function tools), for the session's agent. */
  readonly tools: ReturnType<typeof callTools>;

  private constructor(
    readonly job: CallDispatch,
    readonly setup: CallSetup,
    private readonly evaluations: AgentEvaluation[],
    private readonly reports: GatewayCallReports,
    private readonly recorder: CallRecorder,
    private readonly environment: CallEnvironment,
  ) {
    const transferTo = job.dynamic_variables.transfer_to;
    this.tools = callTools(
      {
        end: () => void this.conductor?.agentEnds(),
        callback: (at) => this.recorder.callbackRequested(at),
        transfer: async (to) => {
          await this.reports.transfer(to);
          void this.conductor?.handedOver();
        },
      },
      new Date(this.now()),
      typeof transferTo === 'string' && transferTo ? transferTo : null,
    );
  }

  /**
   * The call of the job whose metadata is `metadata`; `startedAt`: when its
   * room was made (ms since 1970), the time turns count from. Null when the
   * agent cannot be built: its outcome is reported `failed`, and the room
   * should go.
   */
  static async open(metadata: string, startedAt: number, environment: CallEnvironment): Promise<AgentCall | null> {
    const { logger } = environment;
    const job = parseDispatch(metadata);
    const gateway = new GatewayClient(environment.gateway, job.organization_id, environment.retry);
    const reports = new GatewayCallReports(gateway, { run_id: job.run_id, attempt: job.attempt });
    const agent = await gateway.agent(job.agent_id);
    let setup: CallSetup;
    try {
      setup = await buildCall(agent, job, environment.providers);
    } catch (error) {
      if (!(error instanceof UnusableAgentError)) throw error;
      logger.error({ run: job.run_id, unhonoured: error.unhonoured }, error.message);
      await reports.outcome('failed');
      return null;
    }
    // Once per call, each by its name: nothing is dropped silently.
    for (const { member, reason } of setup.unhonoured) {
      logger.warn(
        { run: job.run_id, agent: agent.id, member, reason },
        `agent configuration member not honoured: ${member}`,
      );
    }
    const evaluations = await evaluationsOf(gateway, agent.id);
    const recorder = await CallRecorder.open(
      reports,
      environment.journals.of(job.run_id, job.attempt),
      startedAt,
      (part, error) => notSent(environment.logger, job, part, error),
    );
    return new AgentCall(job, setup, evaluations, reports, recorder, environment);
  }

  /** The session is live: the script starts (`hangUp` ends the call: LiveKit's room is deleted). */
  begin(session: ConductedSession, hangUp: (reason: EndReason) => Promise<void>) {
    this.conductor = new CallConductor(this.setup.script, session, hangUp, this.environment.timers ?? realTimers);
    this.conductor.start();
  }

  /** A finished turn (LiveKit's `conversation_item_added` message). */
  heard(role: string, text: string | undefined, saidAt: number): Promise<void> {
    return this.recorder.turn(role, text, saidAt).catch((error) => this.failed('turns', error));
  }

  /** The callee said something (LiveKit's `user_input_transcribed`). */
  callerSpoke() {
    this.conductor?.callerSpoke();
  }

  /** The callee was silent for room_duration_config.max_silence_sec (LiveKit's user state `away`). */
  callerAway(): Promise<void> {
    return this.conductor?.callerSilent() ?? Promise.resolve();
  }

  /** LiveKit's AMD verdict: reported; on a voice mail the agent leaves its message and hangs up. */
  async detected(category: string): Promise<void> {
    await this.recorder.detected(category, this.now()).catch((error) => this.failed('detection', error));
    if (!VOICEMAIL.has(category)) return;
    await this.reports.outcome('voicemail').catch((error) => this.failed('outcome', error));
    await this.conductor?.voicemail();
  }

  /** The call is over (the job shuts down): the last turns, who hung up, then the post-call analysis. */
  async end(): Promise<void> {
    this.conductor?.stop();
    await this.recorder
      .ended(this.conductor?.agentHungUp ? 'agent' : 'callee')
      .catch((error) => this.failed('ended', error));
    try {
      const analysis = await analyseCall(
        this.recorder.transcript,
        this.evaluations,
        this.environment.analysisModel(this.setup),
      );
      if (analysis) await this.recorder.analysed(analysis);
    } catch (error) {
      this.failed('analysis', error);
    }
    await this.recorder.finish();
  }

  private now() {
    return (this.environment.now ?? Date.now)();
  }

  private failed(report: string, error: unknown) {
    notSent(this.environment.logger, this.job, report, error);
  }
}

/** A report that did not reach the gateway: logged (the journal keeps it for a restart when it may still go). */
function notSent(logger: CallLogger, job: CallDispatch, report: string, error: unknown) {
  logger.error({ run: job.run_id, attempt: job.attempt, report }, `call report not sent: ${(error as Error).message}`);
}
