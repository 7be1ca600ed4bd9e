-- AlterTable
ALTER TABLE "Organization" ADD COLUMN     "contactLimits" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "numberHealth" JSONB;

-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN     "healthSince" TIMESTAMPTZ(3),
ADD COLUMN     "restedReason" TEXT,
ADD COLUMN     "restedUntil" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "ContactAttempt" (
    "organizationId" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ContactAttempt_pkey" PRIMARY KEY ("runId","attempt")
);

-- CreateIndex
-- Every claim of a run of an organization with contact_limits counts the calls
-- to the run's number in the longest window: one range of this index per
-- number (organization, number, then time), read newest first, never the table.
CREATE INDEX "ContactAttempt_organizationId_number_at_idx" ON "ContactAttempt"("organizationId", "number", "at");

-- CreateIndex
-- A caller id's health reads its latest attempts (after each of its calls with
-- number_health set, and for GET /phone-numbers/{id}): one backward range of
-- this index per number instead of all the organization's attempts.
CREATE INDEX "RunAttempt_organizationId_fromNumber_startedAt_idx" ON "RunAttempt"("organizationId", "fromNumber", "startedAt");

-- AddForeignKey
ALTER TABLE "ContactAttempt" ADD CONSTRAINT "ContactAttempt_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
