// The job's metadata, as the gateway's LiveKit dialer writes it on the
// dispatch (src/livekit/livekit-dialer.ts, README "Real calls with LiveKit").
import { z } from 'zod';

const dispatchMetadata = z.object({
  organization_id: z.string().min(1),
  agent_id: z.string().min(1),
  run_id: z.string().min(1),
  batch_id: z.string().min(1),
  attempt: z.number().int().min(1),
  prospect: z.object({
    id: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    phone: z.string(),
  }),
  /** What the agent's pre-call webhook answered (`{}` without one). */
  dynamic_variables: z.record(z.string(), z.unknown()).default({}),
});

export type CallDispatch = z.output<typeof dispatchMetadata>;

/** The dispatch's metadata; throws when it is not the gateway's. */
export function parseDispatch(metadata: string): CallDispatch {
  let value: unknown;
  try {
    value = JSON.parse(metadata);
  } catch {
    throw new Error('the job metadata is not JSON: was the job dispatched by the gateway?');
  }
  const parsed = dispatchMetadata.safeParse(value);
  if (!parsed.success) {
    throw new Error(
      `the job metadata is not the gateway's: ${parsed.error.issues.map((issue) => issue.path.join('.')).join(', ')}`,
    );
  }
  return parsed.data;
}
