-- An organization's settings (GET/PATCH /settings): calls in progress at once,
-- over every instance; null is no bound of its own.
ALTER TABLE "Organization" ADD COLUMN "maxConcurrentCalls" INTEGER
  CONSTRAINT "Organization_maxConcurrentCalls_positive" CHECK ("maxConcurrentCalls" > 0);
