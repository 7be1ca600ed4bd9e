// `npx gateway seed-demo`: realistic demo data through the same domain rules
// the API uses. Agents with full configurations, a workflow with two
// versions, prospects with tags and a list, a SIP trunk pair with numbers,
// evaluations, a connected integration, and a batch the simulated dialer runs
// as soon as a server (with its engine) is up.

import type { Viewer } from '../auth/authenticate.ts';
import type { Database } from '../db/database.ts';
import { tenantClient } from '../db/tenant.ts';
import { agentCreate, agentToolsSet, createAgent, setAgentTools } from '../domain/agents.ts';
import { batchCreate, createBatch } from '../domain/batches.ts';
import { createEvaluation, evaluationCreate } from '../domain/evaluations.ts';
import { connectIntegration, integrationConnect } from '../domain/integrations.ts';
import { createOrganization } from '../domain/organizations.ts';
import {
  addTagsToProspect,
  createProspectList,
  createProspects,
  createTag,
  prospectListCreate,
  prospectsCreate,
  prospectTagsAdd,
  tagCreate,
} from '../domain/prospects.ts';
import type { Scope } from '../domain/scope.ts';
import type { SecretBox } from '../domain/secrets.ts';
import { createSipTrunk, sipTrunkCreate } from '../domain/telephony.ts';
import { parseOrThrow } from '../domain/validation.ts';
import { createWorkflow, publishWorkflowVersion, workflowCreate, workflowVersionCreate } from '../domain/workflows.ts';
import type { OutboundPolicy } from '../outbound/request.ts';

export interface Progress {
  start(total: number, label: string): void;
  advance(by?: number): void;
  stop(): void;
}

const FIRST_NAMES = [
  'Ada',
  'Alan',
  'Grace',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'Ken',
  'Radia',
  'Tim',
  'Katherine',
  'Linus',
];
const LAST_NAMES = [
  'Lovelace',
  'Turing',
  'Hopper',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Thompson',
  'Perlman',
  'Berners-Lee',
  'Johnson',
  'Torvalds',
];

const voiceAgent = {
  name: 'Renewal reminder (voice)',
  type: 'voice',
  prompt_template: 'You call {{first_name}} about their contract renewal. Be brief and friendly.',
  default_functions: ['end_call', 'transfer_call'],
  llm_config: {
    provider: 'openai',
    model: 'gpt-4o-mini',
    temperature: 0.4,
    max_tokens: 400,
    fallbacks: [
      {
        provider: 'anthropic',
        model: 'claude-3-5-haiku',
        temperature: 0.4,
        fallbacks: [{ provider: 'groq', model: 'llama-3.1-70b' }],
      },
    ],
  },
  transcriber_config: {
    provider: 'deepgram',
    model: 'nova-2',
    language: 'en-US',
    endpointing_ms: 300,
    fallbacks: [{ provider: 'assemblyai', language: 'en' }],
  },
  voice_config: {
    provider: 'elevenlabs',
    model: 'eleven_turbo_v2',
    voice_id: 'rachel',
    speed: 1.05,
    stability: 0.5,
    fallbacks: [{ provider: 'cartesia', model: 'sonic' }],
  },
  vad_config: { activation_threshold: 0.5, min_silence_duration: 0.4, sample_rate: 16000 },
  greeting_config: {
    agent_speaks_first: true,
    greeting: 'Hi {{first_name}}, this is Ava from Acme.',
    pause_before_first_message: 300,
  },
  goodbye_config: { enabled: true, message: 'Thanks for your time. Goodbye!' },
  room_duration_config: { max_duration_min: 10, max_silence_sec: 20, silence_message: 'Are you still there?' },
  background_sound: {
    enabled: true,
    file: 'office.mp3',
    volume: 0.2,
    thinking_sound: [{ sound: 'keyboard.mp3', probability: 0.5 }],
  },
  extra_config: { allow_interruptions: true, interruption_sensitivity: 0.6, use_gender_plugin: 'none' },
  precall_webhook: {
    method: 'POST',
    url: 'https://crm.example.com/precall',
    headers: { 'X-Source': 'gateway' },
    timeout_seconds: 5,
  },
};

const chatAgent = {
  name: 'Support triage (chat)',
  type: 'chat',
  prompt_template: "Triage the customer's question and collect their account number.",
  llm_config: { provider: 'anthropic', model: 'claude-3-5-sonnet', temperature: 0.2 },
};

export async function seedDemo(
  db: Database,
  secrets: SecretBox,
  options: { organizationId?: string; prospects: number; outbound: OutboundPolicy },
  progress: Progress,
) {
  const created = options.organizationId ? null : await createOrganization(db.prisma, 'Demo organization');
  const organizationId = options.organizationId ?? created!.organization.id;
  if (!(await db.prisma.organization.findUnique({ where: { id: organizationId } })))
    throw new Error('organization not found');
  const viewer: Viewer = { organizationId, apiKeyId: 'seed-demo', scopes: ['*'] };
  const scope: Scope = { prisma: tenantClient(db.prisma, organizationId), viewer };

  const voice = await createAgent(scope, parseOrThrow(agentCreate, voiceAgent), options.outbound);
  await createAgent(scope, parseOrThrow(agentCreate, chatAgent), options.outbound);
  await setAgentTools(
    scope,
    voice.id,
    parseOrThrow(agentToolsSet, {
      tools: [
        {
          name: 'book_meeting',
          description: 'Books a renewal meeting in the calendar',
          url: 'https://calendar.example.com/book',
          method: 'POST',
          parameters: [
            { name: 'date', description: 'ISO date', type: 'string', required: true },
            { name: 'duration_min', description: 'minutes', type: 'integer', required: false },
          ],
        },
      ],
    }),
  );
  for (const [category, title, score] of [
    ['tone', 'Friendly greeting', 92],
    ['accuracy', 'States renewal date correctly', 78],
    ['compliance', 'Offers opt-out', 100],
  ] as const) {
    await createEvaluation(
      scope,
      parseOrThrow(evaluationCreate, { agent_id: voice.id, category, title, prompt: `Judge: ${title}`, score }),
    );
  }

  const trunks = await createSipTrunk(
    scope,
    secrets,
    parseOrThrow(sipTrunkCreate, {
      name: 'Main carrier',
      address: 'sip.carrier.example.com',
      provider: 'twilio',
      phone_numbers: ['+14155550100', '+14155550101', '+14155550102'],
      auth_username: 'acme',
      auth_password: 'demo-password',
      max_concurrency: 5,
    }),
  );
  await connectIntegration(
    scope,
    secrets,
    parseOrThrow(integrationConnect, {
      slug: 'hubspot',
      credentials: { private_app_token: 'demo-token' },
      settings: { pipeline_id: 'renewals' },
    }),
  );

  const call = (id: string) => ({ id, type: 'call', agent_id: voice.id, trunk_id: trunks.outboundTrunk.id });
  const workflow = await createWorkflow(
    scope,
    parseOrThrow(workflowCreate, {
      name: 'Contract renewals',
      description: 'Calls customers whose contract ends this month',
      trigger_type: 'manual',
      definition: { steps: [call('first-call')] },
    }),
    options.outbound,
  );
  await publishWorkflowVersion(
    scope,
    workflow.id,
    parseOrThrow(workflowVersionCreate, {
      definition: { steps: [call('first-call'), { id: 'cool-down', type: 'wait', seconds: 1 }, call('follow-up')] },
    }),
    options.outbound,
  );

  progress.start(options.prospects, 'prospects');
  const ids: string[] = [];
  for (let start = 0; start < options.prospects; start += 1000) {
    const count = Math.min(1000, options.prospects - start);
    const prospects = Array.from({ length: count }, (_, offset) => {
      const n = start + offset;
      const first = FIRST_NAMES[n % FIRST_NAMES.length]!;
      const last = LAST_NAMES[Math.floor(n / FIRST_NAMES.length) % LAST_NAMES.length]!;
      return {
        first_name: first,
        last_name: last,
        email: `${first}.${last}.${n}@example.com`.toLowerCase(),
        phone: `+1415${String(5_000_000 + n).padStart(7, '0')}`,
      };
    });
    ids.push(
      ...(await createProspects(scope, parseOrThrow(prospectsCreate, { prospects }))).map((prospect) => prospect.id),
    );
    progress.advance(count);
  }
  progress.stop();

  const vip = await createTag(scope, parseOrThrow(tagCreate, { name: 'vip' }));
  const renewal = await createTag(scope, parseOrThrow(tagCreate, { name: 'renewal-due' }));
  const tags = parseOrThrow(prospectTagsAdd, { tag_ids: [vip.id, renewal.id] });
  for (const id of ids.slice(0, 10)) await addTagsToProspect(scope, id, tags);
  const list = await createProspectList(
    scope,
    parseOrThrow(prospectListCreate, {
      name: 'Renewals this month',
      prospect_ids: ids.slice(0, Math.min(ids.length, 50)),
    }),
  );
  const batch = await createBatch(
    scope,
    workflow.id,
    parseOrThrow(batchCreate, { name: 'November renewals', prospect_ids: ids, prospect_list_id: list.id }),
  );

  return {
    organization_id: organizationId,
    ...(created ? { api_key: created.apiKey } : {}),
    agent_id: voice.id,
    workflow_id: workflow.id,
    batch_id: batch.id,
    prospects: ids.length,
  };
}
