-- Revoked API keys reach every instance at once: each instance keeps the keys
-- it has verified for a few seconds (src/auth/api-key-cache.ts) and LISTENs on
-- "api_key_revoked" to forget a key the moment it is revoked, rotated or
-- deleted, by whichever process (a gateway, the CLI, an operator's psql).
-- The payload is the key's hash, never the key. A notification is sent when
-- the transaction commits (none if it rolls back), once per key and transaction.

-- CreateFunction
CREATE FUNCTION "api_key_revoked_notify"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_key_revoked', OLD."hash");
  RETURN NULL;
END;
$$;

-- CreateTrigger
CREATE TRIGGER "ApiKey_revoked_notify"
AFTER UPDATE OF "revokedAt", "hash" OR DELETE ON "ApiKey"
FOR EACH ROW EXECUTE FUNCTION "api_key_revoked_notify"();
