import type { SqlClient } from '../tx.ts';

/** How calls did on an evaluation: the share that passed and the mean score (null when none scored it). */
export interface EvaluationResults {
  evaluationId: number;
  count: number;
  passRate: number | null;
  meanScore: number | null;
}

/**
 * How the organization's call records made in [from, to) scored each of the
 * evaluations `evaluationIds` (GraphQL `Evaluation.results`), in one statement
 * for every evaluation a query asks about.
 * Index: "CallRecord_organizationId_createdAt_id_idx" for the period; the
 * records' `evaluations` are read in the rows found.
 */
export async function evaluationResults(
  tx: SqlClient,
  organizationId: string,
  evaluationIds: readonly number[],
  from: Date,
  to: Date,
): Promise<EvaluationResults[]> {
  const rows = await tx.$queryRaw<EvaluationResults[]>`
    SELECT (item->>'evaluation_id')::int AS "evaluationId", count(*)::int AS count,
      avg(CASE WHEN (item->>'passed')::boolean THEN 1 ELSE 0 END)::float8 AS "passRate",
      avg((item->>'score')::float8)::float8 AS "meanScore"
    FROM "CallRecord" AS c, jsonb_array_elements(c.evaluations) AS item
    WHERE c."organizationId" = ${organizationId} AND c."createdAt" >= ${from} AND c."createdAt" < ${to}
      AND (item->>'evaluation_id')::int = ANY(${[...evaluationIds]}::int[])
    GROUP BY 1`;
  const found = new Map(rows.map((row) => [row.evaluationId, row]));
  return evaluationIds.map(
    (evaluationId) => found.get(evaluationId) ?? { evaluationId, count: 0, passRate: null, meanScore: null },
  );
}
