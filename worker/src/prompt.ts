// The values `{{name}}` placeholders read in the agent's prompt, greeting and
// messages: the prospect and the run, by the names the pre-call webhook's body
// template uses (`{{prospect.first_name}}`, `{{run.id}}` …), and the variables
// the pre-call webhook answered, by their own names (`{{plan}}`). The syntax is
// the gateway's (src/domain/placeholders.ts).
import type { PlaceholderValues } from '../../src/domain/placeholders.ts';
import type { CallDispatch } from './dispatch.ts';

export function placeholderValues(job: CallDispatch): PlaceholderValues {
  const variables = Object.entries(job.dynamic_variables).flatMap(([name, value]): [string, string | number][] =>
    typeof value === 'string' || typeof value === 'number'
      ? [[name, value]]
      : typeof value === 'boolean'
        ? [[name, String(value)]]
        : [],
  );
  const { prospect } = job;
  return {
    ...Object.fromEntries(variables),
    // The run's own names win: a pre-call variable cannot pass for the prospect.
    'prospect.id': prospect.id,
    'prospect.first_name': prospect.first_name,
    'prospect.last_name': prospect.last_name,
    'prospect.email': prospect.email,
    'prospect.phone': prospect.phone,
    'run.id': job.run_id,
    'run.attempt': job.attempt,
    'batch.id': job.batch_id,
    'agent.id': job.agent_id,
  };
}
