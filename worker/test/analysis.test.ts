// The post-call analysis over a transcript, with a scripted model; and the
// agent's own model asked once through the real OpenAI plugin (answering from
// the vendor capture).
import { describe, expect, test } from 'vitest';
import { type AgentEvaluation, AnalysisError, type AnalysisModel, analyseCall } from '../src/analysis.ts';
import { buildLlm } from '../src/mapping/llm.ts';
import { modelCompletion } from '../src/model-completion.ts';
import { useCapturedVendors } from './support/plugins.ts';

const transcript = [
  { role: 'agent' as const, text: 'Hi Ada, this is Ava.', started_ms: 500, ended_ms: 500 },
  { role: 'callee' as const, text: 'Call me tomorrow.', started_ms: 2_000, ended_ms: 2_000 },
];
const evaluations: AgentEvaluation[] = [
  { id: 7, category: 'Sales', title: 'Keeps the customer', prompt: 'Was the customer kept?', score: 70 },
  { id: 8, category: '', title: 'Polite', prompt: 'Was the agent polite?', score: 90 },
];

function scripted(answer: string) {
  const asked: { instructions: string; input: string }[] = [];
  const model: AnalysisModel = {
    async complete(instructions, input) {
      asked.push({ instructions, input });
      return answer;
    },
  };
  return { model, asked };
}

describe('analyseCall', () => {
  test('the model reads the evaluations and the transcript; its answer becomes the record’s members', async () => {
    const { model, asked } = scripted(
      `Sure!\n\`\`\`json\n${JSON.stringify({
        summary: 'A call back tomorrow.',
        disposition: { label: 'Call back booked', category: 'success' },
        sentiment: 0.5,
        evaluations: [
          { evaluation_id: 7, score: 70.4, reason: 'Kept.' },
          { evaluation_id: 8, score: 120 },
          { evaluation_id: 9, score: 50, reason: 'not the agent’s' },
        ],
      })}\n\`\`\``,
    );
    expect(await analyseCall(transcript, evaluations, model)).toEqual({
      summary: 'A call back tomorrow.',
      disposition: { label: 'Call back booked', category: 'success' },
      sentiment: 0.5,
      evaluations: [
        { evaluation_id: 7, score: 70, reason: 'Kept.', passed: true },
        { evaluation_id: 8, score: 100, reason: '', passed: true },
      ],
    });
    expect(asked[0]!.input).toBe(
      [
        'Evaluations:',
        '- id 7: Sales / Keeps the customer: Was the customer kept?',
        '- id 8: Polite: Was the agent polite?',
        '',
        'Transcript:',
        'Agent: Hi Ada, this is Ava.',
        'Callee: Call me tomorrow.',
      ].join('\n'),
    );
  });

  test('a score under the evaluation’s own fails it; no evaluations, no sentiment: none reported', async () => {
    const failing = scripted(
      JSON.stringify({
        summary: 'S',
        disposition: { label: 'L', category: 'issue' },
        evaluations: [{ evaluation_id: 8, score: 89, reason: 'Curt.' }],
      }),
    );
    expect((await analyseCall(transcript, evaluations, failing.model))?.evaluations).toEqual([
      { evaluation_id: 8, score: 89, reason: 'Curt.', passed: false },
    ]);
    const bare = scripted(JSON.stringify({ summary: 'S', disposition: { label: 'L', category: 'neutral' } }));
    expect(await analyseCall(transcript, [], bare.model)).toEqual({
      summary: 'S',
      disposition: { label: 'L', category: 'neutral' },
    });
    expect(bare.asked[0]!.input).toContain('Evaluations:\n(none)');
  });

  test('nothing said: no analysis, the model is not asked', async () => {
    const { model, asked } = scripted('{}');
    expect(await analyseCall([], evaluations, model)).toBeNull();
    expect(asked).toEqual([]);
  });

  test('an answer that is not the analysis is an AnalysisError naming what is wrong', async () => {
    await expect(analyseCall(transcript, [], scripted('I cannot help with that.').model)).rejects.toThrow(
      new AnalysisError('the analysis answered no JSON object'),
    );
    const wrong = scripted(JSON.stringify({ summary: 'S', disposition: { label: '', category: 'great' } }));
    await expect(analyseCall(transcript, [], wrong.model)).rejects.toThrow(
      'the analysis is not the one asked for: disposition.label, disposition.category',
    );
  });
});

describe('modelCompletion', () => {
  const vendors = useCapturedVendors();

  test('the agent’s model (the OpenAI plugin) is asked with the instructions and the input; its text is the answer', async () => {
    const model = buildLlm({ provider: 'openai', model: 'gpt-4.1-mini' }, vendors.providers, [])!;
    const answer = modelCompletion(model).complete('Analyse.', 'Transcript: …');
    const request = await vendors.capture.next();
    expect(JSON.parse(request.body)).toMatchObject({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'Analyse.' },
        { role: 'user', content: 'Transcript: …' },
      ],
    });
    const chunk = (content: string) =>
      `data: ${JSON.stringify({
        id: 'c1',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'gpt-4.1-mini',
        choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }],
      })}\n\n`;
    request.reply(200, `${chunk('{"summary":')}${chunk(' "S"}')}data: [DONE]\n\n`);
    expect(await answer).toBe('{"summary": "S"}');
  });
});
