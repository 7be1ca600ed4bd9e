import { Prisma } from '../../generated/prisma/client.ts';

/**
 * Every column of a call record aliased `c` but its searched words (which
 * only PostgreSQL reads): a CallRecord as the statements that answer one
 * select or return it (GET /call-records, POST …/attempts/{attempt}/record).
 */
export const callRecordColumns = Prisma.sql`c.id, c."organizationId", c."attemptId", c."runId", c."attemptNumber",
  c."batchId", c."agentId", c.transcript, c.detection, c."detectionResult", c.summary, c.disposition,
  c."dispositionLabel", c."dispositionCategory", c.data, c.sentiment, c."endedBy", c."recordingUrl", c.latency,
  c."callbackAt", c.evaluations, c.transfer, c."createdAt", c."updatedAt"`;
