-- Call-backs a callee asked for (a call record's callback_at) granted to a run, at most 5.
ALTER TABLE "Run" ADD COLUMN "callbacks" INTEGER NOT NULL DEFAULT 0;
