// Finding call records (GET /call-records, GraphQL `callRecords`): by words
// said or summarized, in the organization's `transcript_language`, and by
// agent, batch, disposition, detection and time. One schema checks the
// filter, whichever adapter it came through.
import { z } from 'zod';
import type { SqlQueryable } from '../db/database.ts';
import type { CallRecordConditions } from '../db/parts/call-record-conditions.ts';
import { callRecordsPage } from '../db/sql/call-records-page.ts';
import { countCallRecords } from '../db/sql/count-call-records.ts';
import { searchedCallRecordsPage } from '../db/sql/searched-call-records-page.ts';
import { CALL_RECORD_BOUNDS, callDetection, callDisposition } from '../records/call-records.ts';

/** What a search may hold at most. */
const CALL_RECORD_SEARCH_BOUNDS = {
  /** Characters of the words searched (`q`, `search`). */
  searchChars: 200,
  /**
   * Matches ranked when words are searched: the newest this many, best first;
   * the matches past them follow by time. Ranking reads each ranked record's
   * words, so a common word over a million records costs what this many do.
   */
  rankedMatches: 1_000,
} as const;

type Page = { offset: number; limit: number };

const rfc3339 = () => z.iso.datetime({ offset: true, local: false });

export const callRecordFilter = z
  .strictObject({
    search: z
      .string()
      .trim()
      .max(CALL_RECORD_SEARCH_BOUNDS.searchChars)
      .optional()
      .meta({
        description:
          'words said or summarized, as a web search engine reads them ("quoted phrase", or, -word); the best of the ' +
          `newest ${CALL_RECORD_SEARCH_BOUNDS.rankedMatches.toLocaleString('en')} matches first, then the older ones newest first`,
      }),
    agent_id: z.string().min(1).optional().meta({ description: 'records of this agent (`agt_…`)' }),
    batch_id: z.string().min(1).optional().meta({ description: 'records of this batch (`bat_…`)' }),
    disposition: z
      .string()
      .min(1)
      .max(CALL_RECORD_BOUNDS.label)
      .optional()
      .meta({ description: "records whose disposition's label is exactly this" }),
    category: callDisposition.shape.category.optional(),
    detection: callDetection.shape.result.optional(),
    from: rfc3339().optional().meta({ description: 'records made at or after this instant (RFC 3339)' }),
    to: rfc3339().optional().meta({ description: 'records made before this instant (RFC 3339)' }),
  })
  .refine((filter) => !filter.from || !filter.to || Date.parse(filter.to) >= Date.parse(filter.from), {
    path: ['to'],
    message: 'must not be before from',
  })
  .meta({ id: 'CallRecordFilter', description: 'Conditions a call record must meet, all of them.' });

export type CallRecordFilter = z.output<typeof callRecordFilter>;

/** The filter as SQL conditions: instants parsed, an empty search none. */
const conditionsOf = (filter: CallRecordFilter): CallRecordConditions => ({
  search: filter.search ? filter.search : undefined,
  agentId: filter.agent_id,
  batchId: filter.batch_id,
  dispositionLabel: filter.disposition,
  dispositionCategory: filter.category,
  detectionResult: filter.detection,
  from: filter.from ? new Date(filter.from) : undefined,
  to: filter.to ? new Date(filter.to) : undefined,
});

/**
 * The organization's call records `filter` keeps, a page at a time, and how
 * many there are. Words searched: the page's statement counts the matches
 * too, so a page and its total are one statement (the count's own only when
 * the page found none past the first, or is asked for after its total).
 */
export function callRecordSearch(sql: SqlQueryable, organizationId: string, filter: CallRecordFilter) {
  const conditions = conditionsOf(filter);
  const { search } = conditions;
  const count = () => countCallRecords(sql, organizationId, conditions);
  if (search === undefined)
    return { page: (page: Page) => callRecordsPage(sql, organizationId, conditions, page), count };
  let counted: number | undefined;
  return {
    page: async (page: Page) => {
      const rows = await searchedCallRecordsPage(
        sql,
        organizationId,
        { ...conditions, search },
        page,
        CALL_RECORD_SEARCH_BOUNDS.rankedMatches,
      );
      counted = rows[0]?.total ?? (page.offset === 0 ? 0 : undefined);
      return rows.map(({ total: _, ...record }) => record);
    },
    count: async () => counted ?? count(),
  };
}
