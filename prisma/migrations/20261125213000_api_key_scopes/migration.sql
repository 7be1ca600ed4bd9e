-- API keys have scopes (src/key-scopes.ts): what each may do. The keys made
-- before hold '*', everything, as `orgs create`'s still do. A key may expire
-- ("expiresAt"; a rotated key's grace ends there too).
ALTER TABLE "ApiKey" ADD COLUMN "scopes" TEXT[] NOT NULL DEFAULT ARRAY['*']::TEXT[],
ADD COLUMN "expiresAt" TIMESTAMPTZ(3);

-- The key caches forget a key whose scopes or expiry change as they forget a
-- revoked one (src/auth/api-key-cache.ts): a narrowed key, or a rotated key
-- given a grace period, is read again rather than kept as it was.
DROP TRIGGER "ApiKey_revoked_notify" ON "ApiKey";
CREATE TRIGGER "ApiKey_revoked_notify"
AFTER UPDATE OF "revokedAt", "hash", "scopes", "expiresAt" OR DELETE ON "ApiKey"
FOR EACH ROW EXECUTE FUNCTION "api_key_revoked_notify"();
