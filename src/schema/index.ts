// Every domain type registers itself on the builder when its file is imported.
import { builder } from './builder.ts';
import { enforceKeyScopes } from './key-scope-checks.ts';
import './organization.ts';
import './api-key.ts';
import './workflow.ts';
import './batch.ts';
import './run.ts';
import './call-report.ts';
import './call-record.ts';
import './record-breakdown.ts';
import './prospect.ts';
import './prospect-import.ts';
import './do-not-call.ts';
import './telephony.ts';
import './insight.ts';
import './agent.ts';
import './evaluation.ts';
import './integration.ts';
import './signing-secret.ts';
import './webhook.ts';

// Every field's scope checked in one place (src/key-scopes.ts, key-scope-checks.ts).
export const schema = enforceKeyScopes(builder.toSchema({ sortSchema: true }));
