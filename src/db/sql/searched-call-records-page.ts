import { type CallRecord, Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { callRecordColumns } from '../parts/call-record-columns.ts';
import { type CallRecordConditions, callRecordWhere, searchQuery } from '../parts/call-record-conditions.ts';
import { selectRows } from '../select-rows.ts';

/**
 * A page of the records that `conditions` keep when words are searched, each
 * with `total`, how many match in all (counted in the same pass: no second
 * statement counts them). Only the newest `ranked` matches are ranked
 * (ts_rank over their words, equal ranks newest first) and come first; the
 * matches past them follow by time, newest first.
 * Every match is read once, and only its place, id and time go on through
 * the count and the sort (a common word's thousands of matches would
 * otherwise carry their words into memory, or spill to disk); the words of
 * the newest `ranked` (only theirs: a page past them reads no words) and the
 * page's rows are then read again by their place (a TID scan: a row's place
 * holds for the statement's snapshot; its id is checked too).
 * Index: "CallRecord_searchVector_idx" (GIN) finds the matches.
 * Prepared: planning it took about a millisecond; its text is one per set of
 * filters given.
 */
export function searchedCallRecordsPage(
  sql: SqlQueryable,
  organizationId: string,
  conditions: CallRecordConditions & { search: string },
  page: { offset: number; limit: number },
  ranked: number,
) {
  const newest = Math.max(ranked, page.offset + page.limit);
  return selectRows<CallRecord & { total: number }>(
    sql,
    Prisma.sql`
    SELECT ${callRecordColumns}, found.total
    FROM (
      SELECT numbered.place, numbered.id, numbered.age, numbered.total,
        CASE WHEN numbered.age <= ${ranked} THEN (
          SELECT ts_rank(w."searchVector", ${searchQuery(organizationId, conditions.search)})
          FROM "CallRecord" AS w WHERE w.ctid = numbered.place AND w.id = numbered.id) END AS rank
      FROM (
        SELECT matches.place, matches.id, matches.total,
          row_number() OVER (ORDER BY matches."createdAt" DESC, matches.id DESC) AS age
        FROM (
          SELECT c.ctid AS place, c.id, c."createdAt", count(*) OVER ()::int AS total
          FROM "CallRecord" AS c
          ${callRecordWhere(organizationId, conditions)}
          ORDER BY c."createdAt" DESC, c.id DESC
          LIMIT ${newest}
        ) AS matches
      ) AS numbered
      ORDER BY numbered.age > ${ranked}, rank DESC NULLS LAST, numbered.age
      OFFSET ${page.offset} LIMIT ${page.limit}
    ) AS found
    JOIN "CallRecord" AS c ON c.ctid = found.place AND c.id = found.id
    ORDER BY found.age > ${ranked}, found.rank DESC NULLS LAST, found.age`,
    { prepared: 'shaped' },
  );
}
