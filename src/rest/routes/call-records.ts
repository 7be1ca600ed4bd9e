// Finding call records (src/domain/call-record-search.ts): GET /call-records.
import { z } from 'zod';
import { callRecordFilter } from '../../domain/call-record-search.ts';
import { callRecord } from '../../records/call-records.ts';
import { MAX_PAGE_SIZE } from '../../schema/pagination.ts';
import { operationRoute, pageArgs, pageLimitQuery, paginationEnvelope, paginationEnvelopeSchema } from '../route.ts';

const { search, ...filters } = callRecordFilter.shape;
const itemsPerPage = () => z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional();

/**
 * The filter's members (`search` as `q`), and envelope A's `page` and `limit`;
 * `size` is taken for `limit` too, as the lists of envelope B name it.
 */
const callRecordsQuery = pageLimitQuery.extend({
  q: search,
  ...filters,
  limit: itemsPerPage().meta({ description: 'records per page, 1 to 100; 20 when neither limit nor size is given' }),
  size: itemsPerPage().meta({ description: 'the same as limit' }),
});

const perPage = (query: { limit?: number; size?: number }) => query.limit ?? query.size ?? 20;

export const callRecordRoutes = [
  operationRoute({
    method: 'GET',
    path: '/call-records',
    endpoint: null,
    summary:
      "Find call records by words said or summarized (q, in the organization's transcript_language; the best of " +
      'the newest 1,000 matches first, then the older ones newest first) and by agent, batch, disposition, category, ' +
      'detection and time (newest first)',
    operation: `query($search: String, $agentId: ID, $batchId: ID, $disposition: String, $category: String,
      $detection: String, $from: String, $to: String, $first: Int, $after: String) {
      callRecords(search: $search, agentId: $agentId, batchId: $batchId, disposition: $disposition,
        category: $category, detection: $detection, from: $from, to: $to, first: $first, after: $after) {
        totalCount nodes { ${callRecord.selection} } } }`,
    query: callRecordsQuery,
    variables: ({ query }) => ({
      search: query.q ?? null,
      agentId: query.agent_id ?? null,
      batchId: query.batch_id ?? null,
      disposition: query.disposition ?? null,
      category: query.category ?? null,
      detection: query.detection ?? null,
      from: query.from ?? null,
      to: query.to ?? null,
      ...pageArgs(query.page, perPage(query)),
    }),
    respond: (data, { query }) => paginationEnvelope(data.callRecords, query.page, perPage(query), callRecord.present),
    response: paginationEnvelopeSchema(callRecord.schema),
  }),
];
