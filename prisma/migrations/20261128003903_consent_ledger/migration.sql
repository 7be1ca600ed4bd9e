-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "consentScope" TEXT,
ADD COLUMN     "requireConsent" BOOLEAN;

-- AlterTable
ALTER TABLE "Organization" ADD COLUMN     "blackoutDates" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "requireConsent" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "RunAttempt" ADD COLUMN     "consentId" TEXT;

-- CreateTable
CREATE TABLE "Consent" (
    "id" TEXT NOT NULL DEFAULT ('cns_'::text || replace((gen_random_uuid())::text, '-'::text, ''::text)),
    "organizationId" TEXT NOT NULL,
    "prospectId" TEXT NOT NULL,
    "channel" TEXT NOT NULL DEFAULT 'voice',
    "scope" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "capturedAt" TIMESTAMPTZ(3) NOT NULL,
    "evidence" TEXT,
    "expiresAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Consent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Consent_prospectId_scope_capturedAt_idx" ON "Consent"("prospectId", "scope", "capturedAt" DESC);

-- CreateIndex
CREATE INDEX "Consent_organizationId_idx" ON "Consent"("organizationId");

-- AddForeignKey
ALTER TABLE "Consent" ADD CONSTRAINT "Consent_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Consent" ADD CONSTRAINT "Consent_prospectId_organizationId_fkey" FOREIGN KEY ("prospectId", "organizationId") REFERENCES "Prospect"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;
