-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL DEFAULT ('aud_'::text || replace((gen_random_uuid())::text, '-'::text, ''::text)),
    "organizationId" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "keyId" TEXT,
    "keyName" TEXT,
    "sourceIp" TEXT,
    "userAgent" TEXT,
    "operation" TEXT NOT NULL,
    "resourceType" TEXT,
    "resourceId" TEXT,
    "changes" JSONB,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AuditEvent_organizationId_at_id_idx" ON "AuditEvent"("organizationId", "at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_organizationId_resourceId_at_idx" ON "AuditEvent"("organizationId", "resourceId", "at" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_organizationId_keyId_at_idx" ON "AuditEvent"("organizationId", "keyId", "at" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_organizationId_operation_at_idx" ON "AuditEvent"("organizationId", "operation", "at" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_at_idx" ON "AuditEvent"("at");
-- The trail is append-only, for every role, the table's owner included (many
-- deployments connect as the owner, so revoked privileges alone would not
-- hold): UPDATE, DELETE and TRUNCATE are refused by triggers. One deletion
-- passes: the retention job's (src/db/sql/delete-expired-audit-events.ts),
-- which sets "gateway.audit_retention" for its own transaction (SET LOCAL)
-- and deletes only events older than the retention period. Even then an
-- event younger than 30 days (the shortest period AUDIT_RETENTION_DAYS
-- allows) is refused: whoever can set the setting can at most remove old
-- history, never what just happened. docs/security.md#audit-log says why a
-- session setting rather than a SECURITY DEFINER function.
CREATE FUNCTION "audit_event_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE'
    AND current_setting('gateway.audit_retention', true) = 'on'
    AND OLD."at" < now() - interval '30 days' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit events are append-only: % refused', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER "AuditEvent_append_only"
BEFORE UPDATE OR DELETE ON "AuditEvent"
FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();

CREATE TRIGGER "AuditEvent_no_truncate"
BEFORE TRUNCATE ON "AuditEvent"
FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_append_only"();
