// The post-call analysis: after the call, the agent's language model reads the
// transcript and answers what the call record keeps of it (POST
// …/attempts/{attempt}/record): a summary, a disposition, the callee's
// sentiment, and a score on each of the agent's evaluations (GET
// /agents/evals?agent_id=…). A plain function over the transcript, the model
// injected: the worker passes the agent's own (src/model-completion.ts), tests
// a scripted one.
import { z } from 'zod';
import type { CallRecordReport } from '../../src/domain/call-records.ts';

type Turn = NonNullable<CallRecordReport['transcript']>[number];
type Analysis = Pick<CallRecordReport, 'summary' | 'disposition' | 'sentiment' | 'evaluations'>;

/** A language model asked once: its instructions, the input, its answer as text. */
export interface AnalysisModel {
  complete(instructions: string, input: string): Promise<string>;
}

/** One of the agent's evaluations, as GET /agents/evals serves it: `score` is the bar a call passes. */
export interface AgentEvaluation {
  id: number;
  category: string;
  title: string;
  prompt: string;
  score: number;
}

/** The record's bounds the answer is cut to (src/records/call-records.ts, CALL_RECORD_BOUNDS). */
const SUMMARY_CHARACTERS = 20_000;
const LABEL_CHARACTERS = 200;
const REASON_CHARACTERS = 2_000;

const clip = (length: number) => z.string().transform((text) => text.slice(0, length));

/** What the model is asked to answer. */
const answer = z.object({
  summary: clip(SUMMARY_CHARACTERS),
  disposition: z.object({
    label: clip(LABEL_CHARACTERS).pipe(z.string().min(1)),
    category: z.enum(['success', 'neutral', 'issue']),
  }),
  sentiment: z.number().min(-1).max(1).optional(),
  evaluations: z
    .array(
      z.object({
        evaluation_id: z.number().int(),
        score: z.number().transform((score) => Math.min(100, Math.max(0, Math.round(score)))),
        reason: clip(REASON_CHARACTERS).default(''),
      }),
    )
    .default([]),
});

/** The model's answer was not the analysis asked for. */
export class AnalysisError extends Error {}

const INSTRUCTIONS = `You analyse a finished phone call between an agent and a callee.
Answer with one JSON object and nothing else:
{"summary": string (what the call was about and what was agreed, a few sentences),
 "disposition": {"label": string (what the call achieved, a few words), "category": "success" | "neutral" | "issue"},
 "sentiment": number (the callee's sentiment, -1 negative to 1 positive),
 "evaluations": [{"evaluation_id": number, "score": number (0 to 100), "reason": string}]}
Score every evaluation listed, by its id; list none when there are none.`;

const SPEAKERS: Record<Turn['role'], string> = { agent: 'Agent', callee: 'Callee', system: 'System' };

/** The model's input: the evaluations to score, then the transcript. */
function inputOf(transcript: Turn[], evaluations: AgentEvaluation[]): string {
  const scored = evaluations.map(
    (evaluation) =>
      `- id ${evaluation.id}: ${[evaluation.category, evaluation.title].filter(Boolean).join(' / ')}: ${evaluation.prompt}`,
  );
  const said = transcript.map((turn) => `${SPEAKERS[turn.role]}: ${turn.text}`);
  return ['Evaluations:', ...(scored.length > 0 ? scored : ['(none)']), '', 'Transcript:', ...said].join('\n');
}

/** The JSON object in the model's answer (a model may wrap it in a code fence or a sentence). */
function jsonIn(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) throw new AnalysisError('the analysis answered no JSON object');
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    throw new AnalysisError('the analysis answered JSON that does not parse');
  }
}

/**
 * The record's post-call members for `transcript`: the summary, the
 * disposition, the sentiment, and a score on each of `evaluations` (passed:
 * at least the evaluation's own score). Scores of evaluations the agent does
 * not have are left out (the gateway would refuse the whole part). Null when
 * nothing was said. Throws AnalysisError when the model's answer is not one.
 */
export async function analyseCall(
  transcript: Turn[],
  evaluations: AgentEvaluation[],
  model: AnalysisModel,
): Promise<Analysis | null> {
  if (!transcript.some((turn) => turn.role !== 'system')) return null;
  const parsed = answer.safeParse(jsonIn(await model.complete(INSTRUCTIONS, inputOf(transcript, evaluations))));
  if (!parsed.success) {
    const members = parsed.error.issues.map((issue) => issue.path.join('.') || '(the answer)').join(', ');
    throw new AnalysisError(`the analysis is not the one asked for: ${members}`);
  }
  const bars = new Map(evaluations.map((evaluation) => [evaluation.id, evaluation.score]));
  const { summary, disposition, sentiment } = parsed.data;
  const scored = new Map(
    parsed.data.evaluations.flatMap((result) => {
      const bar = bars.get(result.evaluation_id);
      return bar === undefined ? [] : [[result.evaluation_id, { ...result, passed: result.score >= bar }] as const];
    }),
  );
  return {
    summary,
    disposition,
    ...(sentiment !== undefined ? { sentiment } : {}),
    ...(scored.size > 0 ? { evaluations: [...scored.values()] } : {}),
  };
}
