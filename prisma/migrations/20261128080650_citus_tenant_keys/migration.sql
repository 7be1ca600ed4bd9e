-- Every tenant table's primary key, unique constraints and foreign keys hold
-- organizationId, the distribution column a sharded database (Citus) places
-- rows by (docs/scaling.md#ready-for-citus); test/citus-ready.test.ts reads
-- the catalog for it. Organization, ApiKey and Integration stay as they are
-- (reference tables).

-- DropForeignKey
ALTER TABLE "AgentTool" DROP CONSTRAINT "AgentTool_agentId_fkey";

-- DropForeignKey
ALTER TABLE "Batch" DROP CONSTRAINT "Batch_workflowId_fkey";

-- DropForeignKey
ALTER TABLE "Batch" DROP CONSTRAINT "Batch_workflowVersionId_fkey";

-- DropForeignKey
ALTER TABLE "Evaluation" DROP CONSTRAINT "Evaluation_agentId_fkey";

-- DropForeignKey
ALTER TABLE "PhoneNumber" DROP CONSTRAINT "PhoneNumber_sipTrunkId_fkey";

-- DropForeignKey
ALTER TABLE "WebhookDelivery" DROP CONSTRAINT "WebhookDelivery_endpointId_fkey";

-- DropForeignKey
ALTER TABLE "WebhookDelivery" DROP CONSTRAINT "WebhookDelivery_eventId_fkey";

-- DropForeignKey
ALTER TABLE "WorkflowVersion" DROP CONSTRAINT "WorkflowVersion_workflowId_fkey";

-- DropForeignKey: the keys to Prospect were made on its unique (id,
-- organizationId) while its primary key was (id); that unique now repeats the
-- primary key and goes, so they are made again on the primary key.
ALTER TABLE "Consent" DROP CONSTRAINT "Consent_prospectId_organizationId_fkey";
ALTER TABLE "Run" DROP CONSTRAINT "Run_prospect_fkey";
ALTER TABLE "ProspectListMember" DROP CONSTRAINT "ProspectListMember_prospectId_organizationId_fkey";
ALTER TABLE "ProspectTag" DROP CONSTRAINT "ProspectTag_prospectId_organizationId_fkey";

-- DropIndex
DROP INDEX "Prospect_id_organizationId_key";

-- DropIndex
DROP INDEX "WebhookDelivery_endpointId_eventId_key";

-- DropIndex
DROP INDEX "WorkflowVersion_workflowId_version_key";

-- AlterTable
ALTER TABLE "Agent" DROP CONSTRAINT "Agent_pkey",
ADD CONSTRAINT "Agent_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "AgentTool" DROP CONSTRAINT "AgentTool_pkey",
ADD CONSTRAINT "AgentTool_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "AuditEvent" DROP CONSTRAINT "AuditEvent_pkey",
ADD CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "Batch" DROP CONSTRAINT "Batch_pkey",
ADD CONSTRAINT "Batch_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "CallRecord" DROP CONSTRAINT "CallRecord_pkey",
ADD CONSTRAINT "CallRecord_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "Consent" DROP CONSTRAINT "Consent_pkey",
ADD CONSTRAINT "Consent_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "ContactAttempt" DROP CONSTRAINT "ContactAttempt_pkey",
ADD CONSTRAINT "ContactAttempt_pkey" PRIMARY KEY ("runId", "attempt", "organizationId");

-- AlterTable
ALTER TABLE "Evaluation" DROP CONSTRAINT "Evaluation_pkey",
ADD CONSTRAINT "Evaluation_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "IdempotencyRecord" DROP CONSTRAINT "IdempotencyRecord_pkey",
ADD CONSTRAINT "IdempotencyRecord_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "Insight" DROP CONSTRAINT "Insight_pkey",
ADD CONSTRAINT "Insight_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "OrganizationIntegration" DROP CONSTRAINT "OrganizationIntegration_pkey",
ADD CONSTRAINT "OrganizationIntegration_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "PhoneNumber" DROP CONSTRAINT "PhoneNumber_pkey",
ADD CONSTRAINT "PhoneNumber_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "SipTrunk" DROP CONSTRAINT "SipTrunk_pkey",
ADD CONSTRAINT "SipTrunk_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "WebhookDelivery" DROP CONSTRAINT "WebhookDelivery_pkey",
ADD CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "WebhookEndpoint" DROP CONSTRAINT "WebhookEndpoint_pkey",
ADD CONSTRAINT "WebhookEndpoint_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "WebhookEvent" DROP CONSTRAINT "WebhookEvent_pkey",
ADD CONSTRAINT "WebhookEvent_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "Workflow" DROP CONSTRAINT "Workflow_pkey",
ADD CONSTRAINT "Workflow_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "WorkflowVersion" DROP CONSTRAINT "WorkflowVersion_pkey",
ADD CONSTRAINT "WorkflowVersion_pkey" PRIMARY KEY ("id", "organizationId");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_endpointId_eventId_organizationId_key" ON "WebhookDelivery"("endpointId", "eventId", "organizationId");

-- CreateIndex
CREATE UNIQUE INDEX "WorkflowVersion_workflowId_version_organizationId_key" ON "WorkflowVersion"("workflowId", "version", "organizationId");

-- AddForeignKey
ALTER TABLE "AgentTool" ADD CONSTRAINT "AgentTool_agentId_organizationId_fkey" FOREIGN KEY ("agentId", "organizationId") REFERENCES "Agent"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkflowVersion" ADD CONSTRAINT "WorkflowVersion_workflowId_organizationId_fkey" FOREIGN KEY ("workflowId", "organizationId") REFERENCES "Workflow"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Batch" ADD CONSTRAINT "Batch_workflowId_organizationId_fkey" FOREIGN KEY ("workflowId", "organizationId") REFERENCES "Workflow"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Batch" ADD CONSTRAINT "Batch_workflowVersionId_organizationId_fkey" FOREIGN KEY ("workflowVersionId", "organizationId") REFERENCES "WorkflowVersion"("id", "organizationId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PhoneNumber" ADD CONSTRAINT "PhoneNumber_sipTrunkId_organizationId_fkey" FOREIGN KEY ("sipTrunkId", "organizationId") REFERENCES "SipTrunk"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Evaluation" ADD CONSTRAINT "Evaluation_agentId_organizationId_fkey" FOREIGN KEY ("agentId", "organizationId") REFERENCES "Agent"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_endpointId_organizationId_fkey" FOREIGN KEY ("endpointId", "organizationId") REFERENCES "WebhookEndpoint"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_eventId_organizationId_fkey" FOREIGN KEY ("eventId", "organizationId") REFERENCES "WebhookEvent"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey: the keys to Prospect again, now on its primary key.
ALTER TABLE "Consent" ADD CONSTRAINT "Consent_prospectId_organizationId_fkey" FOREIGN KEY ("prospectId", "organizationId") REFERENCES "Prospect"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Run" ADD CONSTRAINT "Run_prospect_fkey" FOREIGN KEY ("prospectId", "organizationId") REFERENCES "Prospect"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ProspectListMember" ADD CONSTRAINT "ProspectListMember_prospectId_organizationId_fkey" FOREIGN KEY ("prospectId", "organizationId") REFERENCES "Prospect"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ProspectTag" ADD CONSTRAINT "ProspectTag_prospectId_organizationId_fkey" FOREIGN KEY ("prospectId", "organizationId") REFERENCES "Prospect"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;
