// The REST route table: every SPEC.md endpoint and DECISIONS.md extension.
import type { Route } from '../route.ts';
import { agentRoutes } from './agents.ts';
import { doNotCallRoutes } from './do-not-call.ts';
import { integrationRoutes } from './integrations.ts';
import { prospectRoutes } from './prospects.ts';
import { signingSecretRoutes } from './signing-secret.ts';
import { telephonyRoutes } from './telephony.ts';
import { workflowRoutes } from './workflows.ts';

export const routes: Route[] = [...agentRoutes, ...workflowRoutes, ...prospectRoutes, ...integrationRoutes, ...telephonyRoutes, ...doNotCallRoutes, ...signingSecretRoutes];
