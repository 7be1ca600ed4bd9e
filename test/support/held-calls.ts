// A dialer whose calls stay in flight until the test ends them: what an agent
// worker reports during a call, and what the call's end then decides, are
// tested without timing.
import type { CallResult, Dialer } from '../../src/engine/dialer.ts';
import { eventually } from './flows.ts';

/** Calls that stay in flight until the test ends them. */
export function heldCalls() {
  const open = new Map<string, (result: CallResult) => void>();
  const dialer: Dialer = {
    dial: (request, signal) =>
      new Promise((resolve, reject) => {
        open.set(`${request.runId} ${request.attempt}`, resolve);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
  };
  return {
    dialer,
    inFlight: (runId: string, attempt = 1) =>
      eventually(async () => (open.has(`${runId} ${attempt}`) ? true : undefined), 20_000, `call ${runId} ${attempt}`),
    end(runId: string, result: CallResult, attempt = 1) {
      const resolve = open.get(`${runId} ${attempt}`);
      if (!resolve) throw new Error(`no call in flight for ${runId} ${attempt}`);
      open.delete(`${runId} ${attempt}`);
      resolve(result);
    },
  };
}
