import type { CallRecord } from '../../generated/prisma/client.ts';
import { callRecordColumns } from '../parts/call-record-columns.ts';
import { type CallRecordConditions, callRecordWhere, searchQuery } from '../parts/call-record-conditions.ts';
import type { SqlClient } from '../tx.ts';

/**
 * A page of the records that `conditions` keep when words are searched, each
 * with `total`, how many match in all (counted in the same pass: no second
 * statement counts them). Only the newest `ranked` matches are ranked
 * (ts_rank over their words, equal ranks newest first) and come first; the
 * matches past them follow by time, newest first. Every match is read once
 * (its time, for the newest, and its organization); ranking reads the words
 * of at most `ranked`, and the page's own rows are read again whole.
 * Index: "CallRecord_searchVector_idx" (GIN) finds the matches; the page's
 * rows by primary key.
 */
export function searchedCallRecordsPage(
  tx: SqlClient,
  organizationId: string,
  conditions: CallRecordConditions & { search: string },
  page: { offset: number; limit: number },
  ranked: number,
) {
  const newest = Math.max(ranked, page.offset + page.limit);
  return tx.$queryRaw<(CallRecord & { total: number })[]>`
    SELECT ${callRecordColumns}, found.total
    FROM (
      SELECT numbered.id, numbered.age, numbered.total,
        CASE WHEN numbered.age <= ${ranked}
          THEN ts_rank(numbered."searchVector", ${searchQuery(organizationId, conditions.search)}) END AS rank
      FROM (
        SELECT matches.id, matches."searchVector", matches.total,
          row_number() OVER (ORDER BY matches."createdAt" DESC, matches.id DESC) AS age
        FROM (
          SELECT c.id, c."createdAt", c."searchVector", count(*) OVER ()::int AS total
          FROM "CallRecord" AS c
          ${callRecordWhere(organizationId, conditions)}
          ORDER BY c."createdAt" DESC, c.id DESC
          LIMIT ${newest}
        ) AS matches
      ) AS numbered
      ORDER BY numbered.age > ${ranked}, rank DESC NULLS LAST, numbered.age
      OFFSET ${page.offset} LIMIT ${page.limit}
    ) AS found
    JOIN "CallRecord" AS c ON c.id = found.id
    ORDER BY found.age > ${ranked}, found.rank DESC NULLS LAST, found.age`;
}
