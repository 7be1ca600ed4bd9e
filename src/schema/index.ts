// Every domain type registers itself on the builder when its file is imported.
import { builder } from './builder.ts';
import './organization.ts';
import './workflow.ts';
import './batch.ts';
import './run.ts';
import './call-report.ts';
import './call-record.ts';
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

export const schema = builder.toSchema({ sortSchema: true });
