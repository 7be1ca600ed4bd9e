// The function tools the agent's model may call during the call (LiveKit
// Agents' `llm.tool`): `end_call` (the agent says its goodbye and hangs up),
// `schedule_callback` (the callee asked to be called back: the record's
// `callback_at`, which the gateway turns into the run's next attempt) and,
// when the pre-call webhook answered a `transfer_to` variable, `transfer_call`
// (POST …/transfer: the callee is handed to that number or SIP address). A
// tool answers the model in words, the gateway's refusal included, so it can
// tell the callee.
import { llm } from '@livekit/agents';
import { z } from 'zod';
import { GatewayRequestError } from './gateway.ts';

/** What the tools do, in the call (src/call.ts). */
export interface CallActions {
  /** The agent ends the call (its goodbye first). */
  end(): void;
  /** Reports the call-back; throws the gateway's refusal. */
  callback(at: string): Promise<void>;
  /** Hands the callee over; throws the gateway's refusal. */
  transfer(to: string): Promise<void>;
}

const refusal = (error: unknown) =>
  error instanceof GatewayRequestError ? (error.gatewayMessage ?? error.message) : (error as Error).message;

/** The call's tools; `now` is the call's clock, the model is told it to place a call-back in time. */
export function callTools(actions: CallActions, now: Date, transferTo: string | null) {
  const tools = {
    end_call: llm.tool({
      description:
        'Ends the call once the conversation is over or the callee wants to stop; the agent says its goodbye first.',
      parameters: z.object({}),
      execute: async () => {
        actions.end();
        return 'The call is ending.';
      },
    }),
    schedule_callback: llm.tool({
      description:
        `Schedules a call back when the callee asks to be called another time (it is now ${now.toISOString()}). ` +
        'Confirm the time with the callee first.',
      parameters: z.object({
        at: z.string().describe('when to call back, RFC 3339 with its offset, e.g. 2030-01-08T15:00:00+01:00'),
      }),
      execute: async ({ at }) => {
        const when = new Date(at);
        if (Number.isNaN(when.getTime())) return `"${at}" is not a time: give RFC 3339 with an offset.`;
        if (when.getTime() <= now.getTime()) return 'That time has passed: ask the callee for a later one.';
        try {
          await actions.callback(at);
        } catch (error) {
          return `The call back could not be scheduled: ${refusal(error)}.`;
        }
        return `The call back is scheduled for ${at}.`;
      },
    }),
  };
  if (!transferTo) return tools as typeof tools & { transfer_call?: ReturnType<typeof transferTool> };
  return { ...tools, transfer_call: transferTool(actions, transferTo) };
}

function transferTool(actions: CallActions, transferTo: string) {
  return llm.tool({
    description:
      'Hands the callee to a person when they ask for one or the agent cannot help; tell them first, ' +
      'the agent leaves the call once the person took it.',
    parameters: z.object({}),
    execute: async () => {
      try {
        await actions.transfer(transferTo);
      } catch (error) {
        return `The transfer failed: ${refusal(error)}. Tell the callee and go on.`;
      }
      return 'The callee is with a person now.';
    },
  });
}
