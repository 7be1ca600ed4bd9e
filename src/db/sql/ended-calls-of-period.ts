import type { SqlClient } from '../tx.ts';

/** A label (a disposition's) or a kind (a detection's) and how many calls had it. */
export interface Counted {
  name: string;
  count: number;
}

/** How an evaluation did over the calls that scored it. */
interface EvaluationFigures {
  evaluationId: number;
  title: string;
  count: number;
  passed: number;
  meanScore: number;
}

/** What an insight is written from: the organization's calls that ended in a period and their records. */
export interface EndedCalls {
  total: number;
  /** Calls whose record's category is `issue` or that failed an evaluation, or that ended `failed`. */
  issues: number;
  /** Of them: ended `failed` (a technical failure), failed an evaluation. */
  failed: number;
  failedEvaluation: number;
  /** The most frequent dispositions, issue labels (category `issue`), all detections; most first. */
  dispositions: Counted[];
  issueLabels: Counted[];
  detections: Counted[];
  /** The evaluations scored, lowest pass rate first (then lowest mean score). */
  evaluations: EvaluationFigures[];
}

const TOP = 5;

/**
 * The organization's call attempts that ended in [from, to) and what their
 * records say (an attempt without a record counts by its outcome alone), in
 * one statement for E20's insights.
 * Index: "RunAttempt_organizationId_endedAt_idx" (partial: ended attempts
 * only) for the range; each record by "CallRecord_attemptId_runId_organizationId_key"; evaluation
 * titles by "Evaluation_pkey".
 */
export async function endedCallsOfPeriod(tx: SqlClient, organizationId: string, from: Date, to: Date) {
  const [row] = await tx.$queryRaw<EndedCalls[]>`
    WITH ended AS MATERIALIZED (
      SELECT a.outcome::text AS outcome, r."dispositionLabel" AS label, r."dispositionCategory" AS category,
        r."detectionResult" AS detection, COALESCE(r.evaluations, '[]'::jsonb) AS evaluations,
        COALESCE(r.evaluations, '[]'::jsonb) @> '[{"passed": false}]'::jsonb AS "failedEvaluation"
      FROM "RunAttempt" AS a
      LEFT JOIN "CallRecord" AS r ON r."attemptId" = a.id
      WHERE a."organizationId" = ${organizationId} AND a."endedAt" IS NOT NULL
        AND a."endedAt" >= ${from} AND a."endedAt" < ${to}
    ),
    scored AS (
      SELECT (item->>'evaluation_id')::int AS id, (item->>'score')::float8 AS score, (item->>'passed')::boolean AS passed
      FROM ended, jsonb_array_elements(ended.evaluations) AS item
    )
    SELECT
      (SELECT count(*)::int FROM ended) AS total,
      (SELECT count(*)::int FROM ended
        WHERE category = 'issue' OR outcome = 'failed' OR "failedEvaluation") AS issues,
      (SELECT count(*)::int FROM ended WHERE outcome = 'failed') AS failed,
      (SELECT count(*)::int FROM ended WHERE "failedEvaluation") AS "failedEvaluation",
      (SELECT COALESCE(jsonb_agg(jsonb_build_object('name', label, 'count', n) ORDER BY n DESC, label), '[]'::jsonb)
        FROM (SELECT label, count(*)::int AS n FROM ended WHERE label IS NOT NULL
          GROUP BY label ORDER BY n DESC, label LIMIT ${TOP}) AS top) AS dispositions,
      (SELECT COALESCE(jsonb_agg(jsonb_build_object('name', label, 'count', n) ORDER BY n DESC, label), '[]'::jsonb)
        FROM (SELECT label, count(*)::int AS n FROM ended WHERE category = 'issue' AND label IS NOT NULL
          GROUP BY label ORDER BY n DESC, label LIMIT ${TOP}) AS top) AS "issueLabels",
      (SELECT COALESCE(jsonb_agg(jsonb_build_object('name', detection, 'count', n) ORDER BY n DESC, detection),
          '[]'::jsonb)
        FROM (SELECT detection, count(*)::int AS n FROM ended WHERE detection IS NOT NULL
          GROUP BY detection) AS kinds) AS detections,
      (SELECT COALESCE(jsonb_agg(jsonb_build_object('evaluationId', s.id, 'title', COALESCE(e.title, ''),
          'count', s.n, 'passed', s.passed, 'meanScore', s.mean)
          ORDER BY s.passed::float8 / s.n, s.mean, s.id), '[]'::jsonb)
        FROM (SELECT id, count(*)::int AS n, count(*) FILTER (WHERE passed)::int AS passed, avg(score) AS mean
          FROM scored GROUP BY id ORDER BY count(*) FILTER (WHERE passed)::float8 / count(*), avg(score), id
          LIMIT ${TOP}) AS s
        LEFT JOIN "Evaluation" AS e ON e.id = s.id AND e."organizationId" = ${organizationId}) AS evaluations`;
  return row!;
}
