// The integration catalog: the third-party services an organization can
// connect. `schemaConfig` describes the credential and settings members each
// one takes, so clients can render a connect form.
import type { PrismaClient } from '../generated/prisma/client.ts';

type FieldSpec = {
  name: string;
  type: 'string' | 'url' | 'boolean' | 'integer';
  label: string;
  required: boolean;
  secret?: boolean;
};

interface CatalogEntry {
  slug: string;
  name: string;
  category: 'crm' | 'calendar' | 'messaging' | 'telephony';
  description: string;
  credentials: FieldSpec[];
  settings: FieldSpec[];
}

const oauthClient = (label: string): FieldSpec[] => [
  { name: 'client_id', type: 'string', label: `${label} client ID`, required: true },
  { name: 'client_secret', type: 'string', label: `${label} client secret`, required: true, secret: true },
  { name: 'refresh_token', type: 'string', label: 'OAuth refresh token', required: true, secret: true },
];

export const integrationCatalog: CatalogEntry[] = [
  {
    slug: 'salesforce',
    name: 'Salesforce',
    category: 'crm',
    description: 'Sync prospects from and log calls to Salesforce.',
    credentials: [
      { name: 'instance_url', type: 'url', label: 'Instance URL', required: true },
      ...oauthClient('Connected app'),
    ],
    settings: [{ name: 'log_calls_as_tasks', type: 'boolean', label: 'Log calls as tasks', required: false }],
  },
  {
    slug: 'hubspot',
    name: 'HubSpot',
    category: 'crm',
    description: 'Import contacts and write call outcomes to HubSpot.',
    credentials: [
      { name: 'private_app_token', type: 'string', label: 'Private app token', required: true, secret: true },
    ],
    settings: [{ name: 'pipeline_id', type: 'string', label: 'Deal pipeline', required: false }],
  },
  {
    slug: 'pipedrive',
    name: 'Pipedrive',
    category: 'crm',
    description: 'Keep Pipedrive persons and activities in step with runs.',
    credentials: [
      { name: 'company_domain', type: 'string', label: 'Company domain', required: true },
      { name: 'api_token', type: 'string', label: 'API token', required: true, secret: true },
    ],
    settings: [],
  },
  {
    slug: 'zoho-crm',
    name: 'Zoho CRM',
    category: 'crm',
    description: 'Sync leads and call logs with Zoho CRM.',
    credentials: [
      { name: 'data_center', type: 'string', label: 'Data center (us, eu, in, au)', required: true },
      ...oauthClient('Zoho'),
    ],
    settings: [],
  },
  {
    slug: 'google-calendar',
    name: 'Google Calendar',
    category: 'calendar',
    description: 'Let agents book meetings on Google Calendar.',
    credentials: oauthClient('Google OAuth'),
    settings: [{ name: 'calendar_id', type: 'string', label: 'Calendar ID', required: false }],
  },
  {
    slug: 'outlook-calendar',
    name: 'Microsoft Outlook Calendar',
    category: 'calendar',
    description: 'Let agents book meetings on Microsoft 365 calendars.',
    credentials: [
      { name: 'tenant_id', type: 'string', label: 'Tenant ID', required: true },
      ...oauthClient('Azure app'),
    ],
    settings: [{ name: 'mailbox', type: 'string', label: 'Mailbox', required: false }],
  },
  {
    slug: 'calendly',
    name: 'Calendly',
    category: 'calendar',
    description: 'Offer Calendly booking links during calls.',
    credentials: [
      { name: 'personal_access_token', type: 'string', label: 'Personal access token', required: true, secret: true },
    ],
    settings: [{ name: 'event_type_uri', type: 'url', label: 'Event type', required: false }],
  },
  {
    slug: 'slack',
    name: 'Slack',
    category: 'messaging',
    description: 'Post call summaries and alerts to Slack channels.',
    credentials: [{ name: 'bot_token', type: 'string', label: 'Bot token', required: true, secret: true }],
    settings: [{ name: 'channel', type: 'string', label: 'Channel', required: true }],
  },
  {
    slug: 'microsoft-teams',
    name: 'Microsoft Teams',
    category: 'messaging',
    description: 'Post call summaries to a Teams channel.',
    credentials: [{ name: 'webhook_url', type: 'url', label: 'Incoming webhook URL', required: true, secret: true }],
    settings: [],
  },
  {
    slug: 'whatsapp-business',
    name: 'WhatsApp Business',
    category: 'messaging',
    description: 'Follow up calls with WhatsApp template messages.',
    credentials: [
      { name: 'phone_number_id', type: 'string', label: 'Phone number ID', required: true },
      { name: 'access_token', type: 'string', label: 'Access token', required: true, secret: true },
    ],
    settings: [{ name: 'template_name', type: 'string', label: 'Template', required: false }],
  },
  {
    slug: 'twilio',
    name: 'Twilio',
    category: 'telephony',
    description: 'Place and receive calls through Twilio Elastic SIP.',
    credentials: [
      { name: 'account_sid', type: 'string', label: 'Account SID', required: true },
      { name: 'auth_token', type: 'string', label: 'Auth token', required: true, secret: true },
    ],
    settings: [{ name: 'region', type: 'string', label: 'Region', required: false }],
  },
  {
    slug: 'telnyx',
    name: 'Telnyx',
    category: 'telephony',
    description: 'Place and receive calls through Telnyx SIP trunking.',
    credentials: [{ name: 'api_key', type: 'string', label: 'API key', required: true, secret: true }],
    settings: [{ name: 'connection_id', type: 'string', label: 'Connection ID', required: false }],
  },
];

function schemaConfigOf(entry: CatalogEntry) {
  return { category: entry.category, credentials: entry.credentials, settings: entry.settings };
}

/** Brings the catalog table up to date with the list above; safe to run at every start. */
export async function seedIntegrationCatalog(prisma: PrismaClient): Promise<void> {
  await prisma.$transaction(
    integrationCatalog.map((entry) =>
      prisma.integration.upsert({
        where: { slug: entry.slug },
        create: {
          slug: entry.slug,
          name: entry.name,
          category: entry.category,
          description: entry.description,
          schemaConfig: schemaConfigOf(entry),
        },
        update: {
          name: entry.name,
          category: entry.category,
          description: entry.description,
          schemaConfig: schemaConfigOf(entry),
        },
      }),
    ),
  );
}
