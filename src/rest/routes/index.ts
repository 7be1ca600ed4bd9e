// The REST route table: every SPEC.md endpoint and DECISIONS.md extension.
import type { Route } from '../route.ts';
import { agentRoutes } from './agents.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { auditEventRoutes } from './audit-events.ts';
import { callRecordRoutes } from './call-records.ts';
import { callReportRoutes } from './call-reports.ts';
import { consentRoutes } from './consents.ts';
import { doNotCallRoutes } from './do-not-call.ts';
import { integrationRoutes } from './integrations.ts';
import { numberHealthRoutes } from './number-health.ts';
import { organizationSettingsRoutes } from './organization-settings.ts';
import { prospectImportRoutes } from './prospect-import.ts';
import { prospectRoutes } from './prospects.ts';
import { signingSecretRoutes } from './signing-secret.ts';
import { telephonyRoutes } from './telephony.ts';
import { webhookRoutes } from './webhooks.ts';
import { workflowRoutes } from './workflows.ts';

export const routes: Route[] = [
  ...agentRoutes,
  ...workflowRoutes,
  ...prospectRoutes,
  ...prospectImportRoutes,
  ...consentRoutes,
  ...integrationRoutes,
  ...telephonyRoutes,
  ...numberHealthRoutes,
  ...doNotCallRoutes,
  ...signingSecretRoutes,
  ...callReportRoutes,
  ...callRecordRoutes,
  ...webhookRoutes,
  ...organizationSettingsRoutes,
  ...apiKeyRoutes,
  ...auditEventRoutes,
];
